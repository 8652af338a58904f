package io.forgeflow.application;

import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.job.CancelJob;
import io.forgeflow.application.job.PauseJob;
import io.forgeflow.application.job.ResumeJob;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.job.TriggerJob;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.FakeExecutor;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.JobDrafts;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The world a use-case test runs in: one in-memory database on a {@link MutableClock} standing at
 * {@link #START}, a counting work signal, two fake executors ({@code shell} and {@code http}, both enabled), the
 * real cron evaluator, and shortcuts that put runs into each state through the ports, as production code would.
 */
public class Scenario {
    /** A Thursday, 10:00 UTC. */
    public static final Instant START = Instant.parse("2026-01-15T10:00:00Z");
    public static final Duration LEASE = Duration.ofSeconds(30);
    public static final Set<String> ALL_EXECUTORS = Set.of("shell", "http");

    public final MutableClock clock = new MutableClock(START);
    public final InMemoryStore store = new InMemoryStore(clock);
    public final CountingWorkSignal signal = new CountingWorkSignal();
    public final FakeExecutor shell = new FakeExecutor("shell");
    public final FakeExecutor http = new FakeExecutor("http");
    public final ExecutorRegistry executors = new ExecutorRegistry(List.of(shell, http), null);
    public final CronUtilsSchedules cron = new CronUtilsSchedules();

    public SubmitJob submitJob() {
        return new SubmitJob(store.jobs(), executors, cron, signal, clock);
    }

    public PauseJob pauseJob() {
        return new PauseJob(store.jobs());
    }

    public ResumeJob resumeJob() {
        return new ResumeJob(store.jobs(), store.runs(), cron, signal, clock);
    }

    public CancelJob cancelJob() {
        return new CancelJob(store.jobs());
    }

    public TriggerJob triggerJob() {
        return new TriggerJob(store.jobs(), store.runs(), signal, clock);
    }

    public CancelRun cancelRun() {
        return new CancelRun(store.runs());
    }

    /** Submits the draft (which must be accepted) and returns the stored job. */
    public Job submit(JobDrafts draft) {
        return submitJob().submit(draft.build()).job();
    }

    /** The job as stored now. */
    public Job job(String id) {
        return store.jobs().find(id).orElseThrow(() -> new AssertionError("no job " + id));
    }

    /** The run's row as stored now (worker_id is the lease holder: reads through the port add the last attempt's). */
    public Run run(String id) {
        return store.allRuns().stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no run " + id));
    }

    /** Every run of the job, newest first. */
    public List<Run> runsOf(String jobId) {
        return store.allRuns().stream().filter(r -> r.jobId().equals(jobId)).collect(Collectors.toList());
    }

    /** The job's only run. */
    public Run onlyRunOf(String jobId) {
        List<Run> runs = runsOf(jobId);
        assertThat(runs).as("runs of job %s", jobId).hasSize(1);
        return runs.get(0);
    }

    public List<Attempt> attemptsOf(String runId) {
        return store.runs().attempts(runId);
    }

    /** Claims the next due run for {@code worker} (one must be due). */
    public Run claim(String worker) {
        List<Run> claimed = store.queue().claim(worker, ALL_EXECUTORS, 1, LEASE);
        assertThat(claimed).as("runs claimed by %s", worker).hasSize(1);
        return claimed.get(0);
    }

    /** Claims {@code run} (due now, the only one due) and acknowledges its attempt as {@code next}. */
    public Run claimAndEnd(Run run, RunStatus next) {
        Run held = claim("w-" + run.id().substring(0, 8));
        assertThat(held.id()).isEqualTo(run.id());
        return end(held, next);
    }

    /** Acknowledges the attempt of a running run as {@code next} (SUCCEEDED, PENDING, DEAD or CANCELLED). */
    public Run end(Run running, RunStatus next) {
        AttemptOutcome outcome = switch (next) {
            case SUCCEEDED -> AttemptOutcome.SUCCEEDED;
            case CANCELLED -> AttemptOutcome.CANCELLED;
            default -> AttemptOutcome.FAILED;
        };
        Set<RunFence> applied = store.queue().acknowledge(List.of(new Acknowledgement(fence(running), outcome, next,
                Duration.ZERO, "output of attempt " + running.attempt(),
                next == RunStatus.SUCCEEDED ? null : "attempt " + running.attempt() + " failed")));
        assertThat(applied).as("acknowledgement applied").hasSize(1);
        return run(running.id());
    }

    public static RunFence fence(Run running) {
        return new RunFence(running.id(), running.workerId(), running.attempt());
    }

    /** One pass of the leader's lease rescuer with this retry policy; returns how many runs it recovered. */
    public int rescueExpiredLeases(io.forgeflow.domain.backoff.RetryPolicy retryPolicy) {
        return new io.forgeflow.application.lease.LeaseRescuer(store.queue(),
                io.forgeflow.application.testkit.FakeLeaderElection.leading(), retryPolicy, null).runOnce();
    }

    public void advance(Duration by) {
        clock.advance(by);
    }

    public void setClock(String instant) {
        clock.set(Instant.parse(instant));
    }
}
