package io.forgeflow.application.job;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.port.JobRepository;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A job repository whose next {@code lost} updates find the job changed since it was read (and change nothing). */
class InterleavingJobRepositoryAccess extends InterleavingJobRepository {
    private final AtomicInteger lost;

    InterleavingJobRepositoryAccess(JobRepository delegate, AtomicInteger lost) {
        super(delegate);
        this.lost = lost;
    }

    @Override
    public Optional<Job> update(String id, Instant expectedUpdatedAt, JobSpec spec, Instant nextRunAt,
                                PendingRuns pendingRuns, Instant rescheduleTo) {
        if (lost.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return Optional.empty();
        }
        return super.update(id, expectedUpdatedAt, spec, nextRunAt, pendingRuns, rescheduleTo);
    }
}
