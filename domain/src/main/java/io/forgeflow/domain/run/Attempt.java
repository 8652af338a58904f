package io.forgeflow.domain.run;

import java.time.Instant;

/**
 * One attempt of a run: which worker ran it, when, and how it ended. An attempt that is still running has
 * null {@code finishedAt} and {@code outcome}.
 */
public record Attempt(String runId, int attempt, String workerId, Instant startedAt, Instant finishedAt,
                      AttemptOutcome outcome, String error) {
    public Attempt {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        }
    }
}
