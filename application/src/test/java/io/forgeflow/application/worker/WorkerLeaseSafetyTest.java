package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.application.testkit.FakeExecutor;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The worker's protocol against lost replies and hung calls: heartbeats vouch only for attempts the worker holds, each
 * attempt has a local lease deadline on the worker's own clock, and in-flight state is per (run, attempt).
 */
class WorkerLeaseSafetyTest {
    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final RecordingListener listener = new RecordingListener();
    final TestTicker ticker = new TestTicker();
    final Gate gate = new Gate();
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stopEveryWorker() {
        queue.recover();
        queue.heartbeatsWaitFor = null;
        gate.open();
        started.forEach(Worker::stop);
    }

    /** w1: 2 slots, lease 30 s, heartbeat every 10 s: a confirmation is trusted for 20 s. */
    Worker worker() {
        WorkerSettings settings = new WorkerSettings("w1", 2, Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(10), Duration.ofMillis(200), 1024, WorkerTest.RETRY);
        Worker worker = new Worker(settings, queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(), listener,
                new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS, Claimer.PACE_CLAIMS_ABOVE_PER_SECOND),
                new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS, 0), ticker);
        started.add(worker);
        return worker;
    }

    ExecutionContext execution(Run run, int attempt) {
        return s.shell.executions().stream().filter(c -> c.runId().equals(run.id()) && c.attempt() == attempt)
                .findFirst().orElseThrow(() -> new AssertionError("attempt " + attempt + " never executed"));
    }

    @Test
    void aClaimWhoseReplyWasLostIsNotExtendedButReleasedToPendingAtTheNextHeartbeat() {
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        queue.nextClaimReplyLost = true;

        assertThatThrownBy(worker::claimOnce).hasMessageContaining("reply was lost");
        assertThat(s.run(run.id()).status()).as("committed under w1").isEqualTo(RunStatus.RUNNING);
        assertThat(worker.busySlots()).isZero();
        s.advance(Duration.ofSeconds(5));
        worker.heartbeatOnce();

        assertThat(queue.heartbeatsHeld).containsExactly(java.util.Set.of());
        Run now = s.run(run.id());
        assertThat(now.status()).isEqualTo(RunStatus.PENDING);
        assertThat(now.hasAttemptsLeft()).isTrue();
        assertThat(s.attemptsOf(run.id())).singleElement().extracting(Attempt::outcome)
                .isEqualTo(AttemptOutcome.RELEASED);
    }

    @Test
    void heartbeatsExtendOnlyTheAttemptsTheWorkerHolds() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
        Run held = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("the run is executing", () -> gate.entered() == 1);
        s.advance(Duration.ofSeconds(5));

        worker.heartbeatOnce();

        assertThat(queue.heartbeatsHeld).containsExactly(java.util.Set.of(new RunFence(held.id(), worker.holder(), 1)));
        assertThat(s.run(held.id()).leaseExpiresAt()).isEqualTo(s.clock.instant().plus(Scenario.LEASE));
        assertThat(queue.released).isEmpty();
    }

    @Test
    void anAttemptIsStoppedOnceItsLocalLeaseDeadlinePassesWhileTheHeartbeatHangs() throws Exception {
        s.shell.byDefault(FakeExecutor.untilCancelled());
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("the run is executing", () -> s.shell.executions().size() == 1);

        ticker.advance(Duration.ofMillis(19_999));
        assertThat(worker.leases().enforceDeadlines()).as("trusted for 20 s after the claim was asked").isZero();
        worker.heartbeatOnce();                                   // confirms it until 19.999 s + 20 s
        ticker.advance(Duration.ofMillis(19_999));
        assertThat(worker.leases().enforceDeadlines()).isZero();

        queue.heartbeatsWaitFor = new CountDownLatch(1);          // the database stops answering
        Thread hung = new Thread(worker::heartbeatOnce);
        hung.start();
        Await.until("the heartbeat hangs", () -> queue.heartbeatsWaiting.get() == 1);
        ticker.advance(Duration.ofMillis(1));

        assertThat(worker.leases().enforceDeadlines()).isEqualTo(1);
        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        assertThat(execution(run, 1).cancellation().reason()).isEqualTo(StopReasons.UNTRUSTED);
        assertThat(worker.flushAcknowledgements()).as("its result is never acknowledged").isZero();
        assertThat(listener.fencesLost).extracting(RecordingListener.FenceLost::fence)
                .containsExactly(new RunFence(run.id(), worker.holder(), 1));
        queue.heartbeatsWaitFor.countDown();
        hung.join(10_000);
        assertThat(s.run(run.id()).status()).as("left for lease recovery").isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aFailingHeartbeatMovesNoDeadlineAndTheTimerStopsTheAttemptWithoutAnyHeartbeat() {
        s.shell.byDefault(FakeExecutor.untilCancelled());
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("the run is executing", () -> s.shell.executions().size() == 1);
        queue.heartbeatsFail = true;
        ticker.advance(Duration.ofSeconds(10));
        worker.heartbeatOnce();
        ticker.advance(Duration.ofMillis(9_999));
        assertThat(worker.leases().enforceDeadlines()).isZero();

        ticker.advance(Duration.ofMillis(1));

        assertThat(worker.leases().enforceDeadlines()).isEqualTo(1);
        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        assertThat(execution(run, 1).cancellation().reason()).isEqualTo(StopReasons.UNTRUSTED);
        assertThat(worker.flushAcknowledgements()).isZero();
    }

    /**
     * A job that ends by itself after its local deadline, before the timer stopped it (a starved CPU, a long GC): its
     * result is written, fenced. The database takes it only while the run is still this attempt's, in which case no
     * other attempt has started it; discarding it sent the finished run back to pending and ran the job twice.
     */
    @Test
    void anAttemptThatSucceedsAfterItsLocalDeadlineIsAcknowledgedFencedAndNeverRunAgain() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("done")));
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("the run is executing", () -> gate.entered() == 1);
        ticker.advance(Duration.ofSeconds(20));

        gate.open();
        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        worker.heartbeatOnce();                                   // before the result is written: it is still held

        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(s.attemptsOf(run.id())).singleElement().extracting(Attempt::outcome)
                .isEqualTo(AttemptOutcome.SUCCEEDED);
        assertThat(listener.fencesLost).isEmpty();
        worker.heartbeatOnce();
        worker.claimOnce();
        assertThat(s.shell.executions()).as("executed once").hasSize(1);
    }

    /**
     * The neighbour: the timer's stop races the job's own success (the process exited 0 as the kill came). A success
     * is the job's, not the stop's doing, so it is written, fenced; a stopped attempt's failure or cancel is not.
     */
    @Test
    void aJobThatSucceedsAsItsUntrustedLeaseStopsItIsAcknowledgedFenced() {
        CountDownLatch exits = new CountDownLatch(1);
        s.shell.byDefault(ctx -> {
            try {
                exits.await();                                    // deaf to the stop: it was already exiting
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExecutionResult.succeeded("done");
        });
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("the run is executing", () -> s.shell.executions().size() == 1);
        ticker.advance(Duration.ofSeconds(20));
        assertThat(worker.leases().enforceDeadlines()).isEqualTo(1);

        exits.countDown();
        Await.until("the attempt ended", () -> worker.busySlots() == 0);

        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    /** The same late result after the run's lease was recovered: fenced out, the run left to its retry. */
    @Test
    void aResultThatEndsAfterItsDeadlineAndAfterLeaseRecoveryIsFencedOut() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("done")));
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("the run is executing", () -> gate.entered() == 1);
        ticker.advance(Duration.ofSeconds(20));
        s.advance(Duration.ofSeconds(31));
        assertThat(s.rescueExpiredLeases(WorkerTest.RETRY)).isEqualTo(1);

        gate.open();
        Await.until("the attempt ended", () -> worker.busySlots() == 0);

        assertThat(worker.flushAcknowledgements()).as("sent, and fenced out").isEqualTo(1);
        assertThat(s.run(run.id()).status()).as("left to its retry").isEqualTo(RunStatus.PENDING);
        assertThat(s.attemptsOf(run.id())).singleElement().extracting(Attempt::outcome)
                .isEqualTo(AttemptOutcome.LEASE_EXPIRED);
        assertThat(listener.fencesLost).extracting(RecordingListener.FenceLost::fence)
                .containsExactly(new RunFence(run.id(), worker.holder(), 1));
    }

    @Test
    void aRunClaimedAgainStartsItsNewAttemptOnlyOnceTheOlderHasEndedAndOnlyTheNewOneIsAcknowledged() {
        CountDownLatch olderMayEnd = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean olderEnded = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean newerSawOlderRunning = new java.util.concurrent.atomic.AtomicBoolean();
        s.shell.byDefault(ctx -> {
            if (ctx.attempt() == 1) {                        // a process that takes a while to die when told
                ExecutionResult stopped = FakeExecutor.untilCancelled().apply(ctx);
                try {
                    olderMayEnd.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                olderEnded.set(true);
                return stopped;
            }
            newerSawOlderRunning.set(!olderEnded.get());
            return ExecutionResult.succeeded("attempt " + ctx.attempt());
        });
        Run run = s.onlyRunOf(s.submit(aDraft().withMaxAttempts(3)).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("attempt 1 is executing", () -> s.shell.executions().size() == 1);
        s.advance(Duration.ofSeconds(31));                   // the worker paused past its lease
        s.rescueExpiredLeases(WorkerTest.RETRY);
        s.advance(Duration.ofMinutes(20));
        String firstLife = worker.holder();
        worker.heartbeatOnce();                              // its holder was ended: attempt 1 is told to stop

        assertThat(worker.claimOnce()).as("as its next incarnation").isEqualTo(1);
        Await.until("attempt 1 was told to stop", () -> execution(run, 1).cancellation().isCancelled());
        assertThat(s.shell.executions()).as("attempt 2 waits for attempt 1 to end").hasSize(1);
        olderMayEnd.countDown();
        Await.until("attempt 2 ended", () -> worker.busySlots() == 0);

        assertThat(newerSawOlderRunning.get()).as("never two attempts at once").isFalse();
        assertThat(execution(run, 1).cancellation().reason()).isEqualTo(StopReasons.LEASE_LOST);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        Run done = s.run(run.id());
        assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(done.output()).isEqualTo("attempt 2");
        assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome)
                .containsExactly(AttemptOutcome.LEASE_EXPIRED, AttemptOutcome.SUCCEEDED);
        assertThat(listener.fencesLost).extracting(RecordingListener.FenceLost::fence)
                .containsExactly(new RunFence(run.id(), firstLife, 1));
    }

    @Test
    void aRunClaimedAgainWhileItsOlderAttemptRunsStopsTheOlderFirstAndOperatorCancelReachesTheNewOne() {
        s.shell.byDefault(FakeExecutor.untilCancelled());
        Run run = s.onlyRunOf(s.submit(aDraft().withMaxAttempts(3)).id());
        Worker worker = worker();
        worker.claimOnce();
        Await.until("attempt 1 is executing", () -> s.shell.executions().size() == 1);
        s.advance(Duration.ofSeconds(31));                   // the worker paused past its lease
        s.rescueExpiredLeases(WorkerTest.RETRY);
        s.advance(Duration.ofMinutes(20));                   // past any retry delay
        String firstLife = worker.holder();
        worker.heartbeatOnce();                              // its holder was ended: attempt 1 stops

        assertThat(worker.claimOnce()).isEqualTo(1);         // the same worker takes it again, as attempt 2

        Await.until("attempt 2 is executing", () -> s.shell.executions().size() == 2);
        assertThat(execution(run, 1).cancellation().reason()).isEqualTo(StopReasons.LEASE_LOST);
        Await.until("only attempt 2 is held", () -> worker.busySlots() == 1);
        assertThat(execution(run, 2).cancellation().isCancelled()).isFalse();

        s.cancelRun().cancel(run.id());
        worker.heartbeatOnce();

        assertThat(execution(run, 2).cancellation().reason()).isEqualTo(StopReasons.OPERATOR);
        Await.until("attempt 2 ended", () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(listener.fencesLost).extracting(RecordingListener.FenceLost::fence)
                .containsExactly(new RunFence(run.id(), firstLife, 1));
    }
}
