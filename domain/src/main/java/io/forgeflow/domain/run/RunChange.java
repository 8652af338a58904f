package io.forgeflow.domain.run;

import java.time.Instant;
import java.util.Objects;

/**
 * One committed state change of a run, as the live event stream reports it: the run moved to {@code status}.
 *
 * @param attempt  the run's attempt counter after the change (attempts started so far)
 * @param workerId the worker concerned: the claimer for RUNNING, the worker whose attempt ended for a change out of
 *                 RUNNING (acknowledgement, release, lease recovery); null for changes made by the API or scheduler
 * @param at       when the change committed, as seen by the node that made it
 */
public record RunChange(String runId, String jobId, RunStatus status, int attempt, String workerId, Instant at) {
    public RunChange {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(at, "at");
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must be >= 0, was " + attempt);
        }
    }

    /** The change that left {@code run} in its current status, made by {@code workerId} (null: not a worker). */
    public static RunChange of(Run run, String workerId, Instant at) {
        return new RunChange(run.id(), run.jobId(), run.status(), run.attempt(), workerId, at);
    }
}
