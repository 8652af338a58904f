package io.forgeflow.domain.run;

import java.time.Instant;

/**
 * One attempt of a run: which worker ran it, when, and how it ended. An attempt that is still running has
 * null {@code finishedAt} and {@code outcome}.
 *
 * @param retryAfterSeconds the downstream's requested wait before the next attempt, as applied (capped by the retry
 *                          policy), in whole seconds; null when it asked for none
 */
public record Attempt(String runId, int attempt, String workerId, Instant startedAt, Instant finishedAt,
                      AttemptOutcome outcome, String error, Integer retryAfterSeconds) {
    public Attempt {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        }
        if (retryAfterSeconds != null && retryAfterSeconds < 0) {
            throw new IllegalArgumentException("retryAfterSeconds must be >= 0, was " + retryAfterSeconds);
        }
    }

    /** An attempt without a retry-after. */
    public Attempt(String runId, int attempt, String workerId, Instant startedAt, Instant finishedAt,
                   AttemptOutcome outcome, String error) {
        this(runId, attempt, workerId, startedAt, finishedAt, outcome, error, null);
    }
}
