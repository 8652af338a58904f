package io.forgeflow.application.job;

import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobPatch;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.PendingRuns;
import io.forgeflow.domain.port.WorkSignal;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * Changes a job in place ({@code PATCH /api/jobs/{id}}): the patch is applied over the job's definition and checked with
 * the submission's rules (fields, executor payload, cron), then stored with the schedule's next time, computed from
 * now, in one compare-and-set on the definition, so concurrent changes apply one after another and a scheduler tick
 * computed from an old definition is never stored (no tick fires twice, none is lost). A paused job stays paused (its
 * next time is computed when it resumes); pending runs follow the new priority, queue, payload and retry policy unless asked to keep
 * theirs; running runs are not touched. Cancelled and deleted jobs cannot change (409).
 */
public final class UpdateJob {
    /** Compare-and-set rounds before a job that keeps changing under this request is reported as a conflict. */
    static final int ROUNDS = 64;

    private final JobRepository jobs;
    private final ExecutorRegistry executors;
    private final CronSchedules cron;
    private final WorkSignal signal;
    private final Clock clock;

    public UpdateJob(JobRepository jobs, ExecutorRegistry executors, CronSchedules cron, WorkSignal signal, Clock clock) {
        this.jobs = jobs;
        this.executors = executors;
        this.cron = cron;
        this.signal = signal;
        this.clock = clock;
    }

    /** The changed job. {@code keepPending}: pending runs keep their priority, queue and payload. */
    public Job update(String id, JobPatch patch, boolean keepPending) {
        for (int round = 0; round < ROUNDS; round++) {
            Job job = JobControls.load(jobs, id);
            if (job.status() == JobStatus.CANCELLED || job.status() == JobStatus.DELETED) {
                throw JobControls.illegal(job, "changed");
            }
            JobSpec spec = patch.applyTo(job.spec());
            if (patch.gives("payload")) {
                executors.validate(spec.executor(), spec.payload());
            }
            if (patch.gives("notify")) {
                SubmitJob.checkNotifyTarget(executors, spec);
            }
            Instant now = clock.instant();
            boolean moved = JobPatch.movesSchedule(job.spec(), spec) || patch.movesWindow();
            Instant next = job.nextRunAt();
            Instant reschedule = null;
            if (moved && spec.isRecurring()) {
                cron.validate(spec.cronExpr());
                Instant first = io.forgeflow.application.schedule.FirstTick.required(cron, spec, now);
                next = job.status() == JobStatus.ACTIVE ? first : job.nextRunAt();
            } else if (moved) {
                reschedule = spec.runAt() == null || spec.runAt().isBefore(now) ? now : spec.runAt();
                next = job.status() == JobStatus.ACTIVE ? reschedule : job.nextRunAt();
            }
            Optional<Job> changed = jobs.update(id, job.updatedAt(), spec, next,
                    keepPending ? PendingRuns.KEEP : PendingRuns.FOLLOW, reschedule);
            if (changed.isPresent()) {
                if (!keepPending || (reschedule != null && !reschedule.isAfter(now))) {
                    signal.runsBecameDue(); // a pending run may now be due, or in a queue a worker takes
                }
                return changed.get();
            }
        }
        throw new ConflictException("job " + id + " kept changing while this request ran (" + ROUNDS
                + " attempts): read it again and retry");
    }
}
