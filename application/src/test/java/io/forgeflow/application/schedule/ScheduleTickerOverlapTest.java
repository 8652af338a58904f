package io.forgeflow.application.schedule;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The overlap policy of recurring jobs, on the in-memory job repository: what a tick does while an earlier run of
 * the job is pending or running. A dropped tick still advances the job and counts as a missed tick (the
 * forgeflow_missed_ticks_total metric); manual triggers are never dropped.
 */
class ScheduleTickerOverlapTest {
    static final Duration MISFIRE_THRESHOLD = Duration.ofSeconds(60);

    final Scenario s = new Scenario(); // 2026-01-15T10:00:00Z
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final List<Integer> missedTicks = Collections.synchronizedList(new ArrayList<>());
    final ScheduleTicker ticker = new ScheduleTicker(s.store.jobs(), s.cron, election, s.signal, MISFIRE_THRESHOLD,
            missedTicks::add);

    /** An hourly job submitted at 10:00 with this overlap policy: its first tick is 11:00. */
    Job hourly(String overlap) {
        return s.submit(aRecurringDraft("0 * * * *").overlapping(overlap));
    }

    /** Moves the clock 5 s past the given hour's tick and runs one pass; returns how many runs it fired. */
    int tickAt(int hour) {
        s.setClock(String.format("2026-01-15T%02d:00:05Z", hour));
        return ticker.runOnce();
    }

    static Instant at(int hour) {
        return Instant.parse(String.format("2026-01-15T%02d:00:00Z", hour));
    }

    /** The job's runs, oldest tick first. */
    List<Run> runs(Job job) {
        return s.runsOf(job.id()).stream().sorted(Comparator.comparing(Run::scheduledFor)).collect(Collectors.toList());
    }

    @Test
    void theSubmittedPolicyIsKeptOnTheJob() {
        assertThat(hourly("queue_one").spec().overlap()).isEqualTo(Overlap.QUEUE_ONE);
        assertThat(s.submit(aRecurringDraft("0 * * * *")).spec().overlap()).isEqualTo(Overlap.ALLOW);
    }

    @Nested
    class Allow {
        @Test
        void everyTickFiresWhateverIsStillPendingOrRunning() {
            Job job = hourly("allow");
            assertThat(tickAt(11)).isEqualTo(1);
            s.claim("w1");

            assertThat(tickAt(12)).isEqualTo(1);
            assertThat(tickAt(13)).isEqualTo(1);

            assertThat(runs(job)).extracting(Run::status)
                    .containsExactly(RunStatus.RUNNING, RunStatus.PENDING, RunStatus.PENDING);
            assertThat(missedTicks).isEmpty();
        }
    }

    @Nested
    class Skip {
        @Test
        void aTickIsDroppedAndCountedAsMissedWhileARunIsPending() {
            Job job = hourly("skip");
            assertThat(tickAt(11)).isEqualTo(1);
            s.signal.reset();

            assertThat(tickAt(12)).isZero();

            assertThat(runs(job)).extracting(Run::scheduledFor).containsExactly(at(11));
            assertThat(missedTicks).containsExactly(1);
            assertThat(s.job(job.id()).nextRunAt()).as("the dropped tick is consumed").isEqualTo(at(13));
            assertThat(s.signal.count()).as("nothing new to wake workers for").isZero();
        }

        @Test
        void aTickIsDroppedWhileARunIsRunning() {
            Job job = hourly("skip");
            tickAt(11);
            s.claim("w1");

            assertThat(tickAt(12)).isZero();

            assertThat(runs(job)).singleElement().extracting(Run::status).isEqualTo(RunStatus.RUNNING);
            assertThat(missedTicks).containsExactly(1);
        }

        @Test
        void theNextTickAfterTheRunEndedFiresAgain() {
            Job job = hourly("skip");
            tickAt(11);
            Run first = s.claim("w1");
            tickAt(12);
            s.end(first, RunStatus.SUCCEEDED);

            assertThat(tickAt(13)).isEqualTo(1);

            assertThat(runs(job)).extracting(Run::scheduledFor).containsExactly(at(11), at(13));
            assertThat(missedTicks).containsExactly(1);
        }

        @Test
        void aDeadOrCancelledRunDoesNotHoldBackTheNextTick() {
            Job job = hourly("skip");
            tickAt(11);
            Run first = runs(job).get(0);
            s.cancelRun().cancel(first.id());

            assertThat(tickAt(12)).isEqualTo(1);
            assertThat(missedTicks).isEmpty();
        }

        @Test
        void ticksMissedWhileNoSchedulerRanAreCountedWithTheDroppedOne() {
            Job job = s.submit(aRecurringDraft("0 * * * *").overlapping("skip").catchingUp("once"));
            tickAt(11);

            assertThat(tickAt(14)).as("12:00, 13:00 missed; 14:00 dropped for the pending 11:00 run").isZero();

            assertThat(missedTicks).containsExactly(3);
            assertThat(runs(job)).extracting(Run::scheduledFor).containsExactly(at(11));
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(at(15));
        }

        @Test
        void aManualTriggerIsNeverDropped() {
            Job job = hourly("skip");
            tickAt(11);

            Run triggered = s.triggerJob().trigger(job.id());

            assertThat(triggered.status()).isEqualTo(RunStatus.PENDING);
            assertThat(runs(job)).hasSize(2);
        }
    }

    @Nested
    class QueueOne {
        @Test
        void aTickFiresBehindARunningRunButIsDroppedWhileOneIsStillWaiting() {
            Job job = hourly("queue_one");
            tickAt(11);
            assertThat(tickAt(12)).as("11:00 is still pending").isZero();
            assertThat(missedTicks).containsExactly(1);
            s.claim("w1");

            assertThat(tickAt(13)).as("11:00 is running, none waits").isEqualTo(1);
            assertThat(tickAt(14)).as("13:00 waits behind the running one").isZero();

            assertThat(runs(job)).extracting(Run::scheduledFor).containsExactly(at(11), at(13));
            assertThat(runs(job)).extracting(Run::status).containsExactly(RunStatus.RUNNING, RunStatus.PENDING);
            assertThat(missedTicks).containsExactly(1, 1);
        }
    }

    @Nested
    class CancelRunning {
        @Test
        void aPendingRunIsCancelledAndReplacedByTheNewTick() {
            Job job = hourly("cancel_running");
            tickAt(11);

            assertThat(tickAt(12)).isEqualTo(1);

            List<Run> runs = runs(job);
            assertThat(runs).extracting(Run::scheduledFor).containsExactly(at(11), at(12));
            assertThat(runs.get(0).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(runs.get(0).error()).contains("a newer tick replaced it").contains("cancel_running");
            assertThat(runs.get(0).attempt()).isZero();
            assertThat(runs.get(1).status()).isEqualTo(RunStatus.PENDING);
            assertThat(missedTicks).isEmpty();
        }

        @Test
        void aRunningRunIsAskedToStopAndTheNewTickFires() {
            Job job = hourly("cancel_running");
            tickAt(11);
            Run running = s.claim("w1");

            assertThat(tickAt(12)).isEqualTo(1);

            Run old = s.run(running.id());
            assertThat(old.status()).as("the worker stops it").isEqualTo(RunStatus.RUNNING);
            assertThat(old.cancelRequested()).isTrue();
            assertThat(s.store.queue().cancellationsFor("w1")).containsExactly(running.id());
            assertThat(runs(job)).extracting(Run::status).containsExactly(RunStatus.RUNNING, RunStatus.PENDING);
        }

        @Test
        void bothAPendingAndARunningRunAreDealtWith() {
            Job job = s.submit(aRecurringDraft("0 * * * *").overlapping("cancel_running"));
            tickAt(11);
            Run running = s.claim("w1");
            Run waiting = s.triggerJob().trigger(job.id());

            assertThat(tickAt(12)).isEqualTo(1);

            assertThat(s.run(running.id()).cancelRequested()).isTrue();
            assertThat(s.run(waiting.id()).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(runs(job)).filteredOn(r -> r.status() == RunStatus.PENDING).singleElement()
                    .extracting(Run::scheduledFor).isEqualTo(at(12));
        }
    }

    @Test
    void aDroppedTickIsReportedAsSuchByTheRepository() {
        Job job = hourly("skip");
        tickAt(11);
        Job now = s.job(job.id());
        Run run = Run.pending("0190e0b4-7c3a-7d2e-8f00-00000000abcd", job.id(), 3, 5, at(12), "shell",
                job.spec().payload(), 300, at(12));

        JobRepository.TickOutcome outcome = s.store.jobs().fire(job.id(), now.nextRunAt(), at(13), run);

        assertThat(outcome).isEqualTo(JobRepository.TickOutcome.SKIPPED_OVERLAP);
        assertThat(s.store.jobs().fireTick(job.id(), at(13), at(14), null)).as("a tick without a run still advances")
                .isTrue();
        assertThat(s.store.jobs().fire(job.id(), at(13), at(14), run)).as("stale expected tick")
                .isEqualTo(JobRepository.TickOutcome.NOT_ADVANCED);
    }
}
