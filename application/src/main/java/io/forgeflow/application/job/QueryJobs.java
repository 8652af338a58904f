package io.forgeflow.application.job;

import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.support.Paging;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.Page;

/** Reads jobs for the API. */
public final class QueryJobs {
    private final JobRepository jobs;
    private final HandlerWaits waits;

    public QueryJobs(JobRepository jobs) {
        this(jobs, HandlerWaits.NONE);
    }

    /** @param waits what handler jobs wait for (the API's {@code waiting_for}) */
    public QueryJobs(JobRepository jobs, HandlerWaits waits) {
        this.jobs = jobs;
        this.waits = java.util.Objects.requireNonNull(waits, "waits");
    }

    /** What handler jobs wait for, for the API's {@code waiting_for}. */
    public HandlerWaits waits() {
        return waits;
    }

    public Job get(String id) {
        return jobs.find(id).orElseThrow(() -> new NotFoundException("job", id));
    }

    /** Newest first; {@code limit} 1–500 (checked by {@link Paging}). */
    public Page<Job> list(JobStatus status, int limit, String cursor) {
        return listMatching(io.forgeflow.domain.port.JobFilter.status(status), limit, cursor);
    }

    /** Newest first, the jobs that pass {@code filter}; {@code limit} 1–500. */
    public Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor) {
        Paging.checkLimit(limit);
        return Paging.withCursor(cursor, () -> jobs.listMatching(filter, limit, cursor));
    }
}
