package io.forgeflow.domain.job;

import java.time.Instant;
import java.util.Objects;

/**
 * A job: its definition and where its schedule stands.
 *
 * @param nextRunAt a recurring job: when the scheduler enqueues its next run; a one-off job: when its run is
 *                  due, until the run ends; null when nothing is coming (paused, cancelled, completed jobs)
 */
public record Job(String id, JobSpec spec, JobStatus status, Instant nextRunAt, Instant createdAt, Instant updatedAt) {
    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(status, "status");
    }

    public Job withStatus(JobStatus next, Instant nextRun, Instant now) {
        return new Job(id, spec, next, nextRun, createdAt, now);
    }
}
