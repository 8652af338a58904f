package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease keeper's {@link LeaseKeeper#runOnce()} (one heartbeat) and deadline rule on a test ticker. Lease 30 s,
 * heartbeat every 10 s: a confirmation is trusted for 20 s from the start of the call that made it.
 */
class LeaseKeeperTest {
    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final TestTicker ticker = new TestTicker();
    final Gate gate = new Gate();
    final Worker worker = new Worker(WorkerTest.settings(2, Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofMillis(200)), queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(),
            WorkerListener.NONE, new BatchPacer(0, 0, 0), new BatchPacer(0, 0, 0), ticker);
    final LeaseKeeper keeper = worker.leases();

    @AfterEach
    void stop() {
        queue.recover();
        gate.open();
        worker.stop();
    }

    Run executing() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        worker.claimOnce();
        Await.until("the run is executing", () -> gate.entered() == 1);
        return run;
    }

    @Test
    void aHolderTheLeaderEndedStopsItsAttemptsAndTheWorkerGoesOnAsANewIncarnation() {
        Run run = executing();
        String first = worker.holder();
        queue.endedHolders.add(first);

        keeper.runOnce();

        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        assertThat(s.shell.executions().get(0).cancellation().reason()).isEqualTo(StopReasons.LEASE_LOST);
        assertThat(worker.holder()).isNotEqualTo(first).startsWith("w1#");
        assertThat(worker.flushAcknowledgements()).as("nothing of the ended holder is acknowledged").isZero();
        s.shell.byDefault(ctx -> ExecutionResult.succeeded(""));
        s.advance(Duration.ofSeconds(31));
        s.rescueExpiredLeases(WorkerTest.RETRY);
        s.advance(Duration.ofMinutes(20));
        assertThat(worker.claimOnce()).as("claimed again under the new holder").isEqualTo(1);
        Await.until("the second attempt ended", () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void aHeartbeatConfirmsFromItsStartNotItsEnd() {
        executing();
        ticker.advance(Duration.ofSeconds(10));
        queue.duringHeartbeat = () -> ticker.advance(Duration.ofSeconds(5)); // a slow answer

        keeper.runOnce();                                        // started at 10 s: trusted until 30 s

        ticker.advance(Duration.ofSeconds(15).minusNanos(1));
        assertThat(keeper.enforceDeadlines()).isZero();
        ticker.advance(Duration.ofNanos(1));
        assertThat(keeper.enforceDeadlines()).isEqualTo(1);
    }

    @Test
    void aFailedHeartbeatMovesNoDeadline() {
        executing();
        ticker.advance(Duration.ofSeconds(10));
        queue.heartbeatsFail = true;

        keeper.runOnce();

        ticker.advance(Duration.ofSeconds(10));
        assertThat(keeper.enforceDeadlines()).as("still the claim's deadline, 20 s").isEqualTo(1);
        assertThat(keeper.enforceDeadlines()).as("stopped once").isZero();
    }

    @Test
    void aRunUnderThisWorkersIdThatItNeverReceivedWaitsForTheClaimsBegunBeforeTheHeartbeatThenIsReleased() {
        Run lost = s.onlyRunOf(s.submit(aDraft()).id());
        s.claim(worker.holder());                                // committed, but the reply never arrived
        keeper.claimBegins();                                    // a claim under way: its reply may still bring it

        keeper.runOnce();
        assertThat(queue.released).as("the claim under way may still return it").isEmpty();

        keeper.claimSettled();
        keeper.runOnce();

        assertThat(queue.released).containsExactly(new RunFence(lost.id(), worker.holder(), 1));
        assertThat(s.run(lost.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    @Test
    void aHeldAttemptTheDatabaseNoLongerHasIsStoppedAsLost() {
        Run run = executing();
        s.store.queue().release(List.of(new RunFence(run.id(), worker.holder(), 1)));   // someone else's recovery, say
        ticker.advance(Duration.ofSeconds(1));

        keeper.runOnce();

        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        assertThat(s.shell.executions().get(0).cancellation().reason()).isEqualTo(StopReasons.LEASE_LOST);
    }

    @Test
    void heartbeatsNameTheAttemptsHeldAndThoseWaitingToBeWritten() {
        Run running = executing();
        s.shell.byDefault(ctx -> ExecutionResult.succeeded("done"));
        Run finished = s.onlyRunOf(s.submit(aDraft()).id());
        worker.claimOnce();
        Await.until("the second run ended", () -> worker.busySlots() == 1);

        keeper.runOnce();

        assertThat(queue.heartbeatsHeld).containsExactly(Set.of(new RunFence(running.id(), worker.holder(), 1),
                new RunFence(finished.id(), worker.holder(), 1)));
    }

    @Test
    void anAttemptClaimedWhileAHeartbeatWasUnderWayIsNeitherLostNorReleased() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
        s.submit(aDraft());
        queue.duringHeartbeat = () -> {
            queue.duringHeartbeat = null;
            ticker.advance(Duration.ofSeconds(1));
            worker.claimOnce();                              // the heartbeat did not name it: it did not hold it yet
        };

        keeper.runOnce();

        Await.until("the run is executing", () -> gate.entered() == 1);
        assertThat(s.shell.executions().get(0).cancellation().isCancelled()).isFalse();
        assertThat(queue.released).isEmpty();
        assertThat(worker.busySlots()).isEqualTo(1);
    }

    /**
     * Seen in MixedFleetIT on a loaded machine (a shell run executed twice): the claimer registered a run's deadline,
     * then was descheduled before adding the run to its slots; meanwhile the heartbeat began and listed what it held,
     * without that run. The database, which had the claim, reported it running but not named; the keeper took "not
     * confirmed" for "lost" (its deadline entry was older than the heartbeat), stopped the healthy attempt, and once
     * the claim settled released it as never received while its process was still ending. Modelled here by stamping
     * the registration before the heartbeat's start on the test ticker, and making it during the heartbeat.
     */
    @Test
    void anAttemptMissingFromTheHeartbeatsListIsNeitherStoppedNorReleased() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
        s.submit(aDraft());
        long asked = keeper.claimBegins();                       // the claimer asks...
        Run run = s.claim(worker.holder());                      // ...the database commits the claim
        ticker.advance(Duration.ofSeconds(1));
        queue.duringHeartbeat = () -> {                          // after the heartbeat listed what it held
            queue.duringHeartbeat = null;
            ticker.advance(Duration.ofMillis(-500));             // stamped before the heartbeat began
            worker.slots().start(run, worker.holder(), 0, asked);
            ticker.advance(Duration.ofMillis(500));
            keeper.claimSettled();
        };

        keeper.runOnce();
        Await.until("the run is executing", () -> gate.entered() == 1);
        keeper.runOnce();                                         // the next heartbeat names it

        assertThat(s.shell.executions().get(0).cancellation().isCancelled()).as("a healthy attempt runs on").isFalse();
        assertThat(queue.released).as("a run this worker executes is not given back").isEmpty();
        assertThat(queue.heartbeatsHeld.get(1)).containsExactly(new RunFence(run.id(), worker.holder(), 1));
        gate.open();
        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    /**
     * A neighbour of the same cause (a decision on a view older than the slots): an attempt being stopped is not named
     * by heartbeats, so the database reports it as never received; it is not given back while its process may still
     * run (a process in its grace after SIGTERM), only once it ended.
     */
    @Test
    void anAttemptStillStoppingIsNotReleasedUntilItEnded() throws Exception {
        java.util.concurrent.CountDownLatch ends = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger entered = new java.util.concurrent.atomic.AtomicInteger();
        s.shell.byDefault(ctx -> {                               // a process that takes its time to stop
            entered.incrementAndGet();
            try {
                ends.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExecutionResult.cancelled("", ctx.cancellation().reason());
        });
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        worker.claimOnce();
        Await.until("the run is executing", () -> entered.get() == 1);
        RunFence fence = new RunFence(run.id(), worker.holder(), 1);
        worker.slots().stop(fence, StopReasons.UNTRUSTED);

        keeper.runOnce();                                         // the database still has it under this holder

        assertThat(queue.released).as("not while its process may still run").isEmpty();
        ends.countDown();
        Await.until("the attempt ended", () -> worker.busySlots() == 0);
        keeper.runOnce();
        assertThat(queue.released).containsExactly(fence);
    }

    @Test
    void startedItChecksCancellationsEveryPollHeartbeatsEveryIntervalAndStopsUntrustedAttemptsOnItsOwn() {
        Worker polling = new Worker(new WorkerSettings("w1", 2, Duration.ofMillis(20), Duration.ofSeconds(30),
                Duration.ofSeconds(10), Duration.ZERO, 1024, WorkerTest.RETRY), queue, s.executors, s.signal,
                WorkerTest.ExtremeRandom.highest(), WorkerListener.NONE, new BatchPacer(0, 0, 0),
                new BatchPacer(0, 0, 0), ticker);
        try {
            s.shell.byDefault(FakeExecutorUntilCancelled.INSTANCE);
            s.submit(aDraft());
            polling.claimOnce();
            Await.until("the run is executing", () -> s.shell.executions().size() == 1);
            polling.leases().start();

            Await.until("cancellations are checked", () -> queue.cancellationQueries.get() >= 2);
            assertThat(queue.heartbeatsHeld).as("no heartbeat before the interval passed on the ticker").isEmpty();
            ticker.advance(Duration.ofSeconds(10));
            Await.until("a heartbeat", () -> queue.heartbeatsHeld.size() == 1);
            int checked = queue.cancellationQueries.get();
            Await.until("cancellations are checked again", () -> queue.cancellationQueries.get() >= checked + 2);
            assertThat(queue.heartbeatsHeld).as("the next heartbeat is an interval later").hasSize(1);

            queue.heartbeatsFail = true;                     // the database goes silent
            ticker.advance(Duration.ofSeconds(20));          // past the deadline the heartbeat set: 10 s + 20 s
            Await.until("the deadline timer stopped the attempt", () -> polling.busySlots() == 0);
            assertThat(s.shell.executions().get(0).cancellation().reason()).isEqualTo(StopReasons.UNTRUSTED);
        } finally {
            polling.stop();
        }
    }

    /** Blocks until cancelled, as a long process. */
    enum FakeExecutorUntilCancelled implements java.util.function.Function<io.forgeflow.domain.execution.ExecutionContext,
            ExecutionResult> {
        INSTANCE;

        @Override
        public ExecutionResult apply(io.forgeflow.domain.execution.ExecutionContext ctx) {
            return io.forgeflow.application.testkit.FakeExecutor.untilCancelled().apply(ctx);
        }
    }

    @Test
    void deadlinesAreCheckedEveryTenthOfTheHeartbeatWithinBounds() {
        assertThat(keeper.deadlineTick()).isEqualTo(Duration.ofSeconds(1));
        assertThat(new Worker(WorkerTest.settings(2, Duration.ofMillis(200), Duration.ofMillis(100),
                Duration.ZERO), queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(), null)
                .leases().deadlineTick()).isEqualTo(Duration.ofMillis(20));
        assertThat(new Worker(WorkerTest.settings(2, Duration.ofSeconds(4), Duration.ofSeconds(2), Duration.ZERO),
                queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(), null).leases().deadlineTick())
                .isEqualTo(Duration.ofMillis(200));
    }
}
