package io.forgeflow.application.job;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;

import java.time.Instant;
import java.util.Optional;

/**
 * A {@link JobRepository} that lets a test act between a use case's read and its compare-and-set: {@link
 * #beforeNextChangeStatus} runs once, just before the next {@code changeStatus} reaches the real repository, as
 * another request committing in between would.
 */
class InterleavingJobRepository implements JobRepository {
    private final JobRepository delegate;
    private Runnable beforeChangeStatus;
    private int changeStatusCalls;

    InterleavingJobRepository(JobRepository delegate) {
        this.delegate = delegate;
    }

    synchronized void beforeNextChangeStatus(Runnable interleaved) {
        this.beforeChangeStatus = interleaved;
    }

    synchronized int changeStatusCalls() {
        return changeStatusCalls;
    }

    @Override
    public JobCreation create(Job job, Run firstRun) {
        return delegate.create(job, firstRun);
    }

    @Override
    public Optional<Job> find(String id) {
        return delegate.find(id);
    }

    @Override
    public Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor) {
        return delegate.listMatching(filter, limit, cursor);
    }

    @Override
    public Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                      RunCancellation cancellation, Run insert) {
        Runnable interleaved;
        synchronized (this) {
            changeStatusCalls++;
            interleaved = beforeChangeStatus;
            beforeChangeStatus = null;
        }
        if (interleaved != null) {
            interleaved.run();
        }
        return delegate.changeStatus(id, expected, next, nextRunAt, cancellation, insert);
    }

    @Override
    public Optional<Job> update(String id, Instant expectedUpdatedAt, io.forgeflow.domain.job.JobSpec spec,
                                Instant nextRunAt, PendingRuns pendingRuns, Instant rescheduleTo) {
        return delegate.update(id, expectedUpdatedAt, spec, nextRunAt, pendingRuns, rescheduleTo);
    }

    @Override
    public Optional<JobChange> delete(String id, JobStatus expected, boolean cancelRunning) {
        return delegate.delete(id, expected, cancelRunning);
    }

    @Override
    public boolean purge(String id) {
        return delegate.purge(id);
    }

    @Override
    public DueJobs dueJobs(int limit) {
        return delegate.dueJobs(limit);
    }

    @Override
    public TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
        return delegate.fire(jobId, expectedNextRunAt, newNextRunAt, run);
    }
}
