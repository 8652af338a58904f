package io.forgeflow.application.job;

import io.forgeflow.application.schedule.FirstTick;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.RunCancellation;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Clock;
import java.time.Instant;

/**
 * Resumes a paused job. A recurring job continues from now: with {@code catch_up = skip} at its next future tick,
 * with {@code once} one run stands for the ticks missed while paused. A one-off job whose run the pause cancelled
 * gets a new run (at its {@code run_at}, or now if that has passed). Resuming an active job changes nothing.
 */
public final class ResumeJob {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final CronSchedules cron;
    private final WorkSignal signal;
    private final Clock clock;

    public ResumeJob(JobRepository jobs, RunRepository runs, CronSchedules cron, WorkSignal signal, Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.cron = cron;
        this.signal = signal;
        this.clock = clock;
    }

    public Job resume(String id) {
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.ACTIVE) {
            return job;
        }
        if (!job.status().canMoveTo(JobStatus.ACTIVE)) {
            throw JobControls.illegal(job, "resumed");
        }
        Instant now = clock.instant();
        JobSpec spec = job.spec();
        if (spec.isRecurring()) {
            Instant next = FirstTick.after(cron, spec, now).orElse(null);
            if (JobControls.catchesUpOnce(job) && job.updatedAt() != null) {
                Instant missed = cron.nextAfter(spec.cronExpr(), spec.zone(), job.updatedAt()).orElse(null);
                if (missed != null && !missed.isAfter(now) && spec.schedule().allows(missed)) {
                    next = missed; // the scheduler fires one run for the missed ticks, then continues
                }
            }
            if (next == null || spec.schedule().exhausted(job.schedule().firedRuns())) {
                // its window closed or its runs were all fired while it was paused: nothing is left to resume
                return JobControls.orRaced(jobs.changeStatus(id, JobStatus.PAUSED, JobStatus.COMPLETED, null,
                        RunCancellation.NONE, null), id);
            }
            return JobControls.orRaced(jobs.changeStatus(id, JobStatus.PAUSED, JobStatus.ACTIVE, next,
                    RunCancellation.NONE, null), id);
        }
        boolean live = !runs.list(id, RunStatus.PENDING, 1, null).items().isEmpty()
                || !runs.list(id, RunStatus.RUNNING, 1, null).items().isEmpty();
        Instant due = spec.runAt() != null && spec.runAt().isAfter(now) ? spec.runAt() : now;
        Run again = live ? null : Run.pending(Ids.newId(now), id, spec.maxAttempts(), spec.priority(), due,
                spec.executor(), spec.payload(), spec.timeoutSeconds(), now).withRetry(spec.retry());
        // the status change and the new run commit together: a crash cannot leave an active one-off without a run
        Job resumed = JobControls.orRaced(jobs.changeStatus(id, JobStatus.PAUSED, JobStatus.ACTIVE,
                live ? job.nextRunAt() : due, RunCancellation.NONE, again), id);
        if (again != null && !due.isAfter(now)) {
            signal.runsBecameDue();
        }
        return resumed;
    }
}
