package io.forgeflow.client;

/**
 * What {@code POST /api/jobs} answered: the job, and whether it was created now (201) or an earlier submission with
 * the same idempotency key and body was replayed (200).
 */
public record SubmitResult(Job job, boolean created) {
}
