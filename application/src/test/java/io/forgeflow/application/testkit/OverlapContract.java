package io.forgeflow.application.testkit;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.TickOutcome;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link JobRepository#fire} does with a recurring job's overlap policy, seeded and observed through the
 * ports (the Postgres adapter's test extends it too): {@code skip} drops a tick while a run of the job is pending or
 * running, {@code queue_one} while one is pending, {@code cancel_running} cancels the pending run and asks the running
 * one to stop before it fires, {@code allow} always fires. A dropped tick still advances the job.
 */
public abstract class OverlapContract {
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Set<String> SHELL = Set.of("shell");
    private static final Duration HOUR = Duration.ofHours(1);

    protected abstract MutableClock clock();

    protected abstract JobRepository jobs();

    protected abstract RunRepository runs();

    protected abstract RunQueue queue();

    /** An active hourly job with this policy, its next tick an hour from now. */
    protected Job hourly(Overlap overlap) {
        Instant now = clock().instant();
        JobSpec spec = new JobSpec("hourly", "shell", Map.of("command", "true"), "0 * * * *", null, "UTC", 5, 3, 60,
                CatchUp.SKIP, null, "default", null, null, overlap);
        return jobs().create(new Job(Ids.newId(now), spec, JobStatus.ACTIVE, now.plus(HOUR), now, now), null).job();
    }

    /** Fires the job's current tick with a fresh run for it, advancing the job by an hour. */
    protected TickOutcome tick(Job job) {
        Job now = jobs().find(job.id()).orElseThrow();
        Instant due = now.nextRunAt();
        clock().set(due.plusSeconds(1));
        Run run = Run.pending(Ids.newId(clock().instant()), job.id(), 3, 5, due, "shell", Map.of("command", "true"), 60,
                clock().instant());
        return jobs().fire(job.id(), due, due.plus(HOUR), run);
    }

    /** The job's runs, oldest tick first. */
    protected List<Run> runsOf(Job job) {
        return runs().list(job.id(), null, 100, null).items().stream()
                .sorted(Comparator.comparing(Run::scheduledFor)).collect(Collectors.toList());
    }

    protected Run claim(String worker) {
        List<Run> claimed = queue().claim(worker, SHELL, QueueSelection.ALL, 1, LEASE);
        assertThat(claimed).as("runs claimed by %s", worker).hasSize(1);
        return claimed.get(0);
    }

    protected void succeed(Run running) {
        assertThat(queue().acknowledge(List.of(new Acknowledgement(new RunFence(running.id(), running.workerId(),
                running.attempt()), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, Duration.ZERO, "", null))))
                .hasSize(1);
    }

    protected Instant nextRunAt(Job job) {
        return jobs().find(job.id()).orElseThrow().nextRunAt();
    }

    @Test
    void allowFiresEveryTickWhateverStillRuns() {
        Job job = hourly(Overlap.ALLOW);
        assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);
        claim("w1");

        assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);
        assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);

        assertThat(runsOf(job)).extracting(Run::status)
                .containsExactly(RunStatus.RUNNING, RunStatus.PENDING, RunStatus.PENDING);
    }

    @Nested
    class Skip {
        @Test
        void aTickIsDroppedButConsumedWhileARunIsPendingOrRunning() {
            Job job = hourly(Overlap.SKIP);
            assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);
            Instant second = nextRunAt(job);

            assertThat(tick(job)).as("the first run is pending").isEqualTo(TickOutcome.SKIPPED_OVERLAP);
            assertThat(nextRunAt(job)).isEqualTo(second.plus(HOUR));
            Run first = claim("w1");
            assertThat(tick(job)).as("the first run is running").isEqualTo(TickOutcome.SKIPPED_OVERLAP);

            assertThat(runsOf(job)).extracting(Run::id).containsExactly(first.id());
        }

        @Test
        void theTickAfterTheRunEndedFires() {
            Job job = hourly(Overlap.SKIP);
            tick(job);
            Run first = claim("w1");
            succeed(first);

            assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);

            assertThat(runsOf(job)).extracting(Run::status).containsExactly(RunStatus.SUCCEEDED, RunStatus.PENDING);
        }

        @Test
        void anotherJobsRunsDoNotCount() {
            Job busy = hourly(Overlap.ALLOW);
            tick(busy);
            Job job = hourly(Overlap.SKIP);

            assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);
            assertThat(runsOf(busy)).singleElement().extracting(Run::status).isEqualTo(RunStatus.PENDING);
        }
    }

    @Nested
    class QueueOne {
        @Test
        void oneRunMayWaitBehindTheRunningOneAndFurtherTicksAreDropped() {
            Job job = hourly(Overlap.QUEUE_ONE);
            assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);
            assertThat(tick(job)).as("the first run is still waiting").isEqualTo(TickOutcome.SKIPPED_OVERLAP);
            claim("w1");

            assertThat(tick(job)).as("the first runs, none waits").isEqualTo(TickOutcome.FIRED);
            assertThat(tick(job)).as("one waits").isEqualTo(TickOutcome.SKIPPED_OVERLAP);

            assertThat(runsOf(job)).extracting(Run::status).containsExactly(RunStatus.RUNNING, RunStatus.PENDING);
        }
    }

    @Nested
    class CancelRunning {
        @Test
        void aPendingRunIsCancelledAndReplaced() {
            Job job = hourly(Overlap.CANCEL_RUNNING);
            tick(job);

            assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);

            List<Run> runs = runsOf(job);
            assertThat(runs).extracting(Run::status).containsExactly(RunStatus.CANCELLED, RunStatus.PENDING);
            assertThat(runs.get(0).error()).contains("a newer tick replaced it");
            assertThat(runs.get(0).attempt()).isZero();
        }

        @Test
        void aRunningRunIsAskedToStopAndTheTickFires() {
            Job job = hourly(Overlap.CANCEL_RUNNING);
            tick(job);
            Run running = claim("w1");

            assertThat(tick(job)).isEqualTo(TickOutcome.FIRED);

            assertThat(runs().find(running.id()).orElseThrow().cancelRequested()).isTrue();
            assertThat(queue().cancellationsFor("w1")).containsExactly(running.id());
            assertThat(runsOf(job)).extracting(Run::status).containsExactly(RunStatus.RUNNING, RunStatus.PENDING);
        }

        @Test
        void aTickWithoutARunReplacesNothing() {
            Job job = hourly(Overlap.CANCEL_RUNNING);
            tick(job);
            Instant due = nextRunAt(job);

            assertThat(jobs().fire(job.id(), due, due.plus(HOUR), null)).isEqualTo(TickOutcome.FIRED);

            assertThat(runsOf(job)).singleElement().extracting(Run::status).isEqualTo(RunStatus.PENDING);
            assertThat(nextRunAt(job)).isEqualTo(due.plus(HOUR));
        }
    }

    @Test
    void aStaleExpectedTickOrAPausedJobAdvancesNothingWhateverThePolicy() {
        Job job = hourly(Overlap.SKIP);
        Instant due = nextRunAt(job);
        Run run = Run.pending(Ids.newId(clock().instant()), job.id(), 3, 5, due, "shell", Map.of(), 60,
                clock().instant());

        assertThat(jobs().fire(job.id(), due.minus(HOUR), due.plus(HOUR), run)).isEqualTo(TickOutcome.NOT_ADVANCED);
        jobs().changeStatus(job.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null, JobRepository.RunCancellation.NONE,
                null);
        assertThat(jobs().fire(job.id(), due, due.plus(HOUR), run)).isEqualTo(TickOutcome.NOT_ADVANCED);
        assertThat(runsOf(job)).isEmpty();
    }

}
