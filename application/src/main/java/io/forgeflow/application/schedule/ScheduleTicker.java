package io.forgeflow.application.schedule;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.ScheduleControls;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.run.Run;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * On the leader: turns due cron ticks into runs. Before each pass the leader re-checks its lock and stops acting
 * the moment it is in doubt. Each tick inserts its run and advances the job's {@code next_run_at} in one
 * transaction guarded by the previous {@code next_run_at}, and runs are unique per (job, tick), so a tick fires at
 * most once even across a leadership handover; a tick is never lost, because {@code next_run_at} only advances in
 * the transaction that fires it.
 *
 * <p>A tick older than the misfire threshold (default 60 s) when the scheduler reaches it was missed (no scheduler
 * ran, or the job was paused). {@code catch_up = skip} drops missed ticks and continues with the next tick in the
 * future; {@code once} enqueues one run (for the latest missed tick) standing for all of them, then continues.
 * When a pass finds several due ticks of one job, only the newest can fire (if it is within the threshold); the
 * older ones are folded into it as with {@code skip}, so a job never gets a burst of runs for one slow pass.
 *
 * <p>Schedule controls (issue 45): a tick outside {@code start_at..end_at} fires no run; the job completes with its
 * last tick before {@code end_at} or its {@code max_runs}-th run. A tick's run is due at the tick plus the job's
 * jitter for it ({@link ScheduleControls#jitterOf}, the same on every node); the tick itself stays what the run was
 * fired for.
 */
public final class ScheduleTicker {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleTicker.class);
    private static final int BATCH = 200;
    private static final int MAX_SCAN = 1_000;

    private final JobRepository jobs;
    private final CronSchedules cron;
    private final LeaderElection election;
    private final WorkSignal signal;
    private final Duration misfireThreshold;
    private final IntConsumer missedTicks;
    /** Whether the last pass ran as leader (only the leader reads when the next tick is due). */
    private volatile boolean ledLastPass;

    /** @param missedTicks told how many ticks each job skipped (a metric); may be null */
    public ScheduleTicker(JobRepository jobs, CronSchedules cron, LeaderElection election, WorkSignal signal,
                          Duration misfireThreshold, IntConsumer missedTicks) {
        this.jobs = jobs;
        this.cron = cron;
        this.election = election;
        this.signal = signal;
        this.misfireThreshold = misfireThreshold;
        this.missedTicks = missedTicks == null ? n -> { } : missedTicks;
    }

    /** One pass, if this node leads (it campaigns first). Returns how many runs were enqueued. */
    public int runOnce() {
        ledLastPass = false;
        if (!election.campaign()) {
            return 0;
        }
        ledLastPass = true;
        int fired = 0;
        JobRepository.DueJobs due;
        int failed;
        passes:
        do {
            due = jobs.dueJobs(BATCH);
            failed = 0;
            for (Job job : due.jobs()) {
                if (!election.isLeader()) {
                    break passes; // stop acting, but still wake workers for the runs already committed
                }
                try {
                    fired += fire(job, due.now());
                } catch (RuntimeException e) {
                    // one job whose schedule cannot be evaluated (say, written by a newer node) must not stop the rest
                    failed++;
                    LOG.error("job {} ({}): its schedule could not be evaluated, skipping it this pass: {}", job.id(),
                            job.spec().name(), e.toString());
                }
            }
        } while (due.jobs().size() == BATCH && failed < due.jobs().size());
        if (fired > 0) {
            signal.runsBecameDue();
        }
        return fired;
    }

    /**
     * How long to wait before the next pass, at most {@code tick}: until the earliest {@code next_run_at} of an active
     * recurring job when that comes sooner, so that a tick fires on time rather than up to one scheduler tick late.
     * A standby (not the leader at the last pass) waits the whole tick; so does a leader whose earliest job is due
     * already (a tick the last pass could not fire is retried at the tick's pace, never in a busy loop), or when the
     * time cannot be read.
     */
    public Duration untilNextPass(Duration tick) {
        if (!ledLastPass) {
            return tick;
        }
        Optional<Duration> next;
        try {
            next = jobs.nextTickIn();
        } catch (RuntimeException e) {
            LOG.debug("could not read when the next tick is due ({}); waiting the scheduler tick", e.toString());
            return tick;
        }
        if (next.isEmpty() || next.get().isNegative() || next.get().isZero() || next.get().compareTo(tick) >= 0) {
            return tick;
        }
        return next.get();
    }

    private int fire(Job job, Instant now) {
        JobSpec spec = job.spec();
        Instant expected = job.nextRunAt();
        Instant latest = expected;
        Instant next = cron.nextAfter(spec.cronExpr(), spec.zone(), expected).orElse(null);
        int behind = 0;
        int scanned = 0;
        while (next != null && !next.isAfter(now)) {
            behind++;
            latest = next;
            if (++scanned == MAX_SCAN) {
                // a long outage of a frequent job: every tick before the threshold window is missed anyway
                Instant from = now.minus(misfireThreshold);
                if (from.isAfter(latest)) {
                    next = cron.nextAfter(spec.cronExpr(), spec.zone(), from).orElse(null);
                    continue;
                }
            }
            next = cron.nextAfter(spec.cronExpr(), spec.zone(), latest).orElse(null);
        }
        boolean latestIsLate = Duration.between(latest, now).compareTo(misfireThreshold) > 0;
        Instant fireAt;
        int missed;
        if (spec.catchUp() == CatchUp.ONCE) {
            fireAt = latest;
            missed = behind;
        } else if (latestIsLate) {
            fireAt = null;
            missed = behind + 1;
        } else {
            fireAt = latest;
            missed = behind;
        }
        ScheduleControls controls = spec.schedule();
        if (controls.exhausted(job.schedule().firedRuns())) {
            fireAt = null; // max_runs reached (lowered by an edit): the job completes without another run
            next = null;
        }
        if (fireAt != null && !controls.allows(fireAt)) {
            fireAt = null; // outside start_at..end_at (moved by an edit)
        }
        if (next != null && controls.endedBy(next)) {
            next = null; // past end_at: this tick is the last, and the job completes with it
        }
        Instant created = now;
        Run run = fireAt == null ? null : Run.pending(Ids.newId(created), job.id(), spec.maxAttempts(), spec.priority(),
                fireAt.plus(controls.jitterOf(job.id(), fireAt)), spec.executor(), spec.payload(),
                spec.timeoutSeconds(), created).withRetry(spec.retry());
        // guarded on the definition as read too: a PATCH since then makes this a no-op, and the next pass uses the new one
        JobRepository.TickOutcome outcome = jobs.fire(job, next, run);
        if (outcome == JobRepository.TickOutcome.NOT_ADVANCED) {
            return 0; // another scheduler got there first, or the job was paused meanwhile
        }
        if (outcome == JobRepository.TickOutcome.SKIPPED_OVERLAP) {
            missedTicks.accept(missed + 1);
            LOG.info("job {} ({}): tick for {} skipped: an earlier run is still {} (overlap {}); next at {}", job.id(),
                    spec.name(), fireAt, spec.overlap() == io.forgeflow.domain.job.Overlap.QUEUE_ONE
                            ? "waiting" : "pending or running", spec.overlap().wireName(), next);
            return 0;
        }
        if (missed > 0) {
            missedTicks.accept(missed);
            LOG.info("job {} ({}): {} missed tick(s) {} (catch_up {}), next at {}", job.id(), spec.name(), missed,
                    spec.catchUp() == CatchUp.ONCE ? "covered by one run" : "skipped", spec.catchUp().wireName(), next);
        }
        return run == null ? 0 : 1;
    }
}
