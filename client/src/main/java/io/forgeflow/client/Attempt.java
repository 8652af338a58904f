package io.forgeflow.client;

import java.time.Instant;

/**
 * One attempt of a run: the worker that ran it, when, and its {@code outcome} ({@code succeeded}, {@code failed},
 * {@code timed_out}, {@code lease_expired}, {@code cancelled}, {@code released}, {@code snoozed}: the run asked to come
 * back later, {@code gave_up}: the run cancelled itself; null while it is still running) with its error.
 */
public record Attempt(int attempt, String workerId, Instant startedAt, Instant finishedAt, String outcome, String error) {
}
