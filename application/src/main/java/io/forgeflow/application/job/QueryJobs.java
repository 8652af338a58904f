package io.forgeflow.application.job;

import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.support.Paging;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.Page;

/** Reads jobs for the API. */
public final class QueryJobs {
    private final JobRepository jobs;
    private final HandlerWaits waits;
    private final ListBudget budget;

    public QueryJobs(JobRepository jobs) {
        this(jobs, HandlerWaits.NONE);
    }

    /** @param waits what handler jobs wait for (the API's {@code waiting_for}) */
    public QueryJobs(JobRepository jobs, HandlerWaits waits) {
        this(jobs, waits, ListBudget.DEFAULT);
    }

    /** @param budget the most bytes the items of one page for a response hold */
    public QueryJobs(JobRepository jobs, HandlerWaits waits, ListBudget budget) {
        this.jobs = jobs;
        this.waits = java.util.Objects.requireNonNull(waits, "waits");
        this.budget = java.util.Objects.requireNonNull(budget, "budget");
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

    /**
     * A page for a response: payloads over 64 KiB left out and marked ({@link ListedJob}), held to the byte budget (it
     * may end before {@code limit}; its cursor continues after its last item).
     */
    public Page<ListedJob> listForDisplay(JobStatus status, int limit, String cursor) {
        return listForDisplayMatching(io.forgeflow.domain.port.JobFilter.status(status), limit, cursor);
    }

    /** A page for a response of the jobs that pass {@code filter}, held to the byte budget. */
    public Page<ListedJob> listForDisplayMatching(io.forgeflow.domain.port.JobFilter filter, int limit,
                                                  String cursor) {
        Paging.checkLimit(limit);
        return Paging.withCursor(cursor, () -> jobs.listForDisplayMatching(filter, limit, cursor, budget));
    }
}
