package io.forgeflow.application.event;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The job repository as the API and the scheduler use it: every run a call created or cancelled, as the port returned
 * it, is published after the call returned (so after its commit), never from inside the persistence adapter.
 */
public final class PublishedJobs implements JobRepository {
    private final JobRepository jobs;
    private final RunChanges changes;

    public PublishedJobs(JobRepository jobs, RunChanges changes) {
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.changes = Objects.requireNonNull(changes, "changes");
    }

    @Override
    public JobCreation create(Job job, Run firstRun) {
        JobCreation creation = jobs.create(job, firstRun);
        if (creation.created() && creation.run() != null) {
            changes.changed(List.of(creation.run()));
        }
        return creation;
    }

    @Override
    public Optional<Job> find(String id) {
        return jobs.find(id);
    }

    @Override
    public Page<Job> list(JobStatus status, int limit, String cursor) {
        return jobs.list(status, limit, cursor);
    }

    @Override
    public Page<ListedJob> listForDisplay(JobStatus status, int limit, String cursor, ListBudget budget) {
        return jobs.listForDisplay(status, limit, cursor, budget);
    }

    @Override
    public Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor) {
        return jobs.listMatching(filter, limit, cursor);
    }

    @Override
    public Page<ListedJob> listForDisplayMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor,
                                                  ListBudget budget) {
        return jobs.listForDisplayMatching(filter, limit, cursor, budget);
    }

    @Override
    public Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                            RunCancellation cancellation, Run insert) {
        return published(jobs.changeStatus(id, expected, next, nextRunAt, cancellation, insert));
    }

    @Override
    public Optional<JobChange> pause(String id, JobStatus expected, String note, String by) {
        return published(jobs.pause(id, expected, note, by));
    }

    @Override
    public Optional<Job> update(String id, Instant expectedUpdatedAt, JobSpec spec, Instant nextRunAt,
                                PendingRuns pendingRuns, Instant rescheduleTo) {
        return jobs.update(id, expectedUpdatedAt, spec, nextRunAt, pendingRuns, rescheduleTo);
    }

    @Override
    public Optional<JobChange> delete(String id, JobStatus expected, boolean cancelRunning) {
        return published(jobs.delete(id, expected, cancelRunning));
    }

    @Override
    public boolean purge(String id) {
        return jobs.purge(id);
    }

    @Override
    public DueJobs dueJobs(int limit) {
        return jobs.dueJobs(limit);
    }

    @Override
    public Optional<Duration> nextTickIn() {
        return jobs.nextTickIn();
    }

    @Override
    public TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
        return fired(jobs.fire(jobId, expectedNextRunAt, newNextRunAt, run), run);
    }

    @Override
    public TickOutcome fire(Job job, Instant newNextRunAt, Run run) {
        return fired(jobs.fire(job, newNextRunAt, run), run);
    }

    @Override
    public boolean fireTick(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
        return fire(jobId, expectedNextRunAt, newNextRunAt, run) != TickOutcome.NOT_ADVANCED;
    }

    private TickOutcome fired(TickOutcome outcome, Run run) {
        if (outcome == TickOutcome.FIRED && run != null) {
            changes.changed(List.of(run));
        }
        return outcome;
    }

    @Override
    public Optional<BackfillOutcome> backfill(String jobId, String backfillId, io.forgeflow.domain.job.Backfill request,
                                              List<Instant> ticks) {
        Optional<BackfillOutcome> outcome = jobs.backfill(jobId, backfillId, request, ticks);
        outcome.ifPresent(o -> changes.changed(o.runs()));
        return outcome;
    }

    @Override
    public Optional<BackfillProgress> backfillProgress(String jobId, String backfillId) {
        return jobs.backfillProgress(jobId, backfillId);
    }

    private Optional<JobChange> published(Optional<JobChange> change) {
        change.ifPresent(c -> changes.changed(c.runs()));
        return change;
    }
}
