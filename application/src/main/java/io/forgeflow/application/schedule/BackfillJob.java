package io.forgeflow.application.schedule;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Backfill;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.BackfillOutcome;
import io.forgeflow.domain.port.JobRepository.BackfillProgress;
import io.forgeflow.domain.port.WorkSignal;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Backfills a recurring job (README "Backfill"): the ticks of its schedule from {@code from} to {@code to}, both
 * included, computed as the scheduler computes them (the job's zone and daylight-saving policy, so they are the ticks
 * a preview after {@code from} lists), each enqueued as one run due at its tick unless the tick already has a run.
 * At most {@link Backfill#MAX_TICKS} ticks per call (else 422 naming {@code to}). The job's window and max_runs do
 * not apply: a backfill is the operator's explicit range.
 */
public final class BackfillJob {
    private final JobRepository jobs;
    private final CronSchedules cron;
    private final WorkSignal signal;
    private final Clock clock;

    public BackfillJob(JobRepository jobs, CronSchedules cron, WorkSignal signal, Clock clock) {
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.cron = Objects.requireNonNull(cron, "cron");
        this.signal = Objects.requireNonNull(signal, "signal");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The backfill stored with its progress; 409 for a one-off, cancelled, completed or deleted job. */
    public BackfillOutcome backfill(String jobId, Backfill request) {
        Job job = load(jobId);
        if (!job.spec().isRecurring()) {
            throw new ConflictException("job " + job.id() + " is a one-off job: only a recurring job has ticks to "
                    + "backfill; trigger it to run it again");
        }
        if (job.status() != JobStatus.ACTIVE && job.status() != JobStatus.PAUSED) {
            throw new ConflictException("job " + job.id() + " is " + job.status().wireName()
                    + ": only an active or paused job can be backfilled");
        }
        List<Instant> ticks = ticks(job, request);
        Instant now = clock.instant();
        BackfillOutcome outcome = jobs.backfill(job.id(), Ids.newId(now), request, ticks)
                .orElseThrow(() -> new ConflictException("job " + job.id() + " changed while it was backfilled: "
                        + "read it again and retry"));
        if (!outcome.runs().isEmpty()) {
            signal.runsBecameDue();
        }
        return outcome;
    }

    /** The ticks from {@code from} to {@code to}, both included; more than the limit is a 422 naming {@code to}. */
    List<Instant> ticks(Job job, Backfill request) {
        List<Instant> ticks = new ArrayList<>();
        Instant cursor = request.from().minusNanos(1);
        while (true) {
            Optional<Instant> next = cron.nextAfter(job.spec().cronExpr(), job.spec().zone(), cursor);
            if (next.isEmpty() || next.get().isAfter(request.to())) {
                return ticks;
            }
            if (ticks.size() == Backfill.MAX_TICKS) {
                throw request.tooManyTicks(next.get());
            }
            ticks.add(next.get());
            cursor = next.get();
        }
    }

    private Job load(String jobId) {
        return jobs.find(jobId).orElseThrow(() -> new NotFoundException("job", jobId));
    }

    /** A backfill's progress: its runs counted by status. */
    public BackfillProgress progress(String jobId, String backfillId) {
        load(jobId);
        return jobs.backfillProgress(jobId, backfillId).orElseThrow(() -> new NotFoundException("backfill",
                backfillId));
    }
}
