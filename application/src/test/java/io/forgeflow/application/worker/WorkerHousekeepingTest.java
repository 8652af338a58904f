package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a worker tells its listener, how big a batch it claims, and what it does with results it cannot store. */
class WorkerHousekeepingTest {
    static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final RecordingListener listener = new RecordingListener();
    final Gate gate = new Gate();
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stopEveryWorker() {
        queue.recover();
        gate.open();
        started.forEach(Worker::stop);
    }

    static WorkerSettings settings(int concurrency) {
        return new WorkerSettings("w1", concurrency, Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(10), Duration.ofMillis(200), 1024, RETRY);
    }

    Worker worker(int concurrency) {
        Worker worker = new Worker(settings(concurrency), queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(),
                listener);
        started.add(worker);
        return worker;
    }

    static void awaitIdle(Worker worker) {
        Await.until("every execution slot of " + worker.workerId() + " is free", () -> worker.busySlots() == 0);
    }

    @Test
    void aWorkerWhoseAcknowledgementsLagClaimsNothingMoreUntilABatchIsWritten() {
        Worker worker = worker(256); // the bound: max(1,000, 4 x 256 slots) = 1,024 unacknowledged results
        assertThat(worker.acknowledger().maxUnacknowledged()).isEqualTo(1_024);
        for (int i = 0; i < 1_024; i++) {
            s.submit(aDraft());
        }
        for (int round = 0; round < 20 && worker.acknowledger().unacknowledged() < 1_024; round++) {
            assertThat(worker.claimOnce()).isPositive();
            awaitIdle(worker);
        }
        assertThat(worker.acknowledger().unacknowledged()).isEqualTo(1_024);
        s.submit(aDraft());

        assertThat(worker.claimOnce()).as("a run is due, but 1,024 results wait to be written").isZero();
        assertThat(worker.flushAcknowledgements()).isEqualTo(1_000);
        assertThat(worker.acknowledger().unacknowledged()).isEqualTo(24);
        assertThat(worker.claimOnce()).as("claims again once the acknowledger caught up").isEqualTo(1);
    }

    /** A worker that wakes only when told to: its poll interval is an hour. */
    Worker wakeOnlyWorker(int concurrency) {
        Worker worker = new Worker(new WorkerSettings("w1", concurrency, Duration.ofHours(1), Duration.ofSeconds(30),
                Duration.ofSeconds(10), Duration.ofMillis(200), 1024, RETRY), queue, s.executors, s.signal,
                WorkerTest.ExtremeRandom.highest(), listener);
        started.add(worker);
        return worker;
    }

    @Test
    void aFullWorkerClaimsAgainAsSoonAsASlotFreesOrItsResultsAreWritten() {
        Worker worker = wakeOnlyWorker(1);
        for (int i = 0; i < 3; i++) {
            s.submit(aDraft());
        }

        worker.start();

        // one slot: each run after the first is claimed only because the one before freed the slot (no poll for an hour)
        Await.until("all three runs executed and acknowledged", () -> queue.acknowledgementsSent.size() == 3);
    }

    @Test
    void aRunFinishingInAWorkerWithRoomToSpareDoesNotWakeTheClaimer() throws InterruptedException {
        Worker worker = wakeOnlyWorker(4);
        s.submit(aDraft());
        s.signal.reset(); // the first round finds the run without it

        worker.start();
        Await.until("the run executed and acknowledged", () -> queue.acknowledgementsSent.size() == 1);
        Thread.sleep(200); // an absence can only be watched for a while: a wake-up would claim within milliseconds

        // the first round took the one due run with room to spare: neither its end nor its acknowledgement makes a run
        // due, so no claim follows (each used to cost an empty claim, two per run at steady rates)
        assertThat(queue.claimedWithExecutors).hasSize(1);
        s.submit(aDraft());
        Await.until("a run made due wakes the claimer through the signal",
                () -> queue.acknowledgementsSent.size() == 2);
    }

    @Test
    void resultsBeingWrittenCountAsUnacknowledgedUntilTheWriteReturns() {
        java.util.concurrent.CountDownLatch slowDatabase = new java.util.concurrent.CountDownLatch(1);
        queue.acknowledgementsWaitFor = slowDatabase;
        Worker worker = worker(2);
        s.submit(aDraft());
        s.submit(aDraft());
        worker.start();
        try {
            Await.until("both results wait: one batch being written, the rest queued behind it",
                    () -> queue.acknowledgementsWaiting.get() == 1 && worker.acknowledger().unacknowledged() == 2);
        } finally {
            slowDatabase.countDown();
        }
        Await.until("both written", () -> queue.acknowledgementsSent.size() == 2);
        Await.until("nothing left unacknowledged", () -> worker.acknowledger().unacknowledged() == 0);
    }

    @Test
    void aSmallWorkerMayHoldOneFullAcknowledgementBatchOfResults() {
        assertThat(worker(2).acknowledger().maxUnacknowledged()).isEqualTo(Acknowledger.MAX_UNACKNOWLEDGED);
    }

    @Test
    void aWorkerIsNamedByItsSettings() {
        assertThat(worker(2).workerId()).isEqualTo("w1");
    }

    @Test
    void executionsRunOnDaemonThreadsAndTheListenerHearsTheBusySlotsRiseAndFall() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        s.shell.byDefault(ctx -> {
            ranOn.set(Thread.currentThread());
            return ExecutionResult.succeeded("done");
        });
        Worker worker = worker(2);
        s.submit(aDraft());

        assertThat(worker.claimOnce()).isEqualTo(1);
        awaitIdle(worker);

        assertThat(ranOn.get().getName()).startsWith("ff-exec-");
        assertThat(ranOn.get().isDaemon()).as("an executor that hangs never keeps the JVM alive").isTrue();
        Await.until("the slot count fell back", () -> listener.busySlots.size() == 2);
        assertThat(listener.busySlots).containsExactly(1, 0);
    }

    /**
     * Four slots. Before any attempt has ended, a claim fills the slots; once attempts are known to be short, one
     * more batch is held ready (eight runs), and refilled only when half of it is used.
     */
    @Test
    void whileAttemptsAreShortTheWorkerHoldsOneMoreBatchAndRefillsItByHalves() {
        Worker worker = worker(4);
        assertThat(worker.claimer().roomToClaim(0)).as("nothing known about attempt durations yet").isEqualTo(4);

        // attempts of a few milliseconds: the moving average of their durations falls below 50 ms (a first attempt
        // slowed by a loaded machine only takes a few more to be outweighed), and never below 1 ms
        s.shell.byDefault(context -> {
            sleepQuietly(5);
            return ExecutionResult.succeeded("done");
        });
        for (int i = 0; i < 100 && worker.claimer().roomToClaim(0) != 8; i++) {
            s.submit(aDraft());
            assertThat(worker.claimOnce()).isEqualTo(1);
            awaitIdle(worker);
        }
        assertThat(worker.claimer().roomToClaim(0)).as("short attempts ended").isEqualTo(8);

        s.shell.byDefault(gate.then(ExecutionResult.succeeded("done")));
        for (int i = 0; i < 4; i++) {
            s.submit(aDraft());
        }
        assertThat(worker.claimOnce()).isEqualTo(4);
        assertThat(worker.claimer().roomToClaim(0)).as("four held, all executing: the ready batch is empty").isEqualTo(4);

        for (int i = 0; i < 2; i++) {
            s.submit(aDraft());
        }
        assertThat(worker.claimOnce()).isEqualTo(2);
        assertThat(worker.claimer().roomToClaim(0)).as("six held: half of the ready batch is left").isEqualTo(2);

        s.submit(aDraft());
        assertThat(worker.claimOnce()).isEqualTo(1);
        assertThat(worker.claimer().roomToClaim(0)).as("seven held: wait until half the ready batch is used").isZero();
        assertThat(worker.claimOnce()).isZero();
    }

    @Test
    void whileAttemptsTakeUnderAMillisecondTheWorkerHoldsThreeMoreBatches() {
        Worker worker = worker(4);

        // attempts that return at once (a first one slowed by a loaded machine is outweighed after a few more)
        for (int i = 0; i < 200 && worker.claimer().roomToClaim(0) != 16; i++) {
            s.submit(aDraft());
            assertThat(worker.claimOnce()).isEqualTo(1);
            awaitIdle(worker);
        }
        assertThat(worker.claimer().roomToClaim(0)).as("sub-millisecond attempts ended: four slots and three ready batches")
                .isEqualTo(16);

        s.shell.byDefault(gate.then(ExecutionResult.succeeded("done")));
        for (int i = 0; i < 20; i++) {
            s.submit(aDraft());
        }
        assertThat(worker.claimOnce()).isEqualTo(16);
        assertThat(worker.claimer().roomToClaim(0)).as("sixteen held: wait until half a batch of room is free").isZero();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aResultTheDatabaseRefusesIsStoredWithoutItsOutputSayingWhy() {
        s.shell.byDefault(ctx -> ExecutionResult.succeeded("\u0000\u0001binary"));
        queue.refusesNulLikePostgres = true;
        Worker worker = worker(2);
        Run binary = s.onlyRunOf(s.submit(aDraft().withPayload(Map.of("binary", true))).id());

        worker.start();

        Await.until("the binary run's success is stored", () -> s.run(binary.id()).status() == RunStatus.SUCCEEDED);
        assertThat(s.run(binary.id()).output()).isNullOrEmpty();
        assertThat(s.attemptsOf(binary.id())).singleElement().satisfies(attempt -> assertThat(attempt.error())
                .isEqualTo("the attempt's result could not be stored: IllegalStateException"));
    }

    @Test
    void acknowledgementsWaitOutADatabaseOutageAndAreStoredOnceItIsBack() {
        AtomicInteger attempts = new AtomicInteger();
        queue.acknowledgementsFail = true;
        RunQueue counting = new DelegatingRunQueue(queue) {
            @Override
            public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
                attempts.incrementAndGet();
                return super.acknowledge(acks);
            }
        };
        Worker worker = new Worker(settings(2), counting, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(),
                listener);
        started.add(worker);
        Run run = s.onlyRunOf(s.submit(aDraft()).id());

        worker.start();
        // the batch, the acknowledgement alone, and alone without its output: the database is down, not the result
        Await.until("the acknowledgement was tried in every form", () -> attempts.get() >= 3);
        queue.recover();

        Await.until("the success is stored", () -> s.run(run.id()).status() == RunStatus.SUCCEEDED);
        assertThat(s.run(run.id()).output()).isEqualTo("ok");
    }

    @Test
    void acknowledgementsThatCouldNotBeWrittenAtStopAreDroppedNotKept() {
        Worker worker = worker(2);
        s.submit(aDraft());
        assertThat(worker.claimOnce()).isEqualTo(1);
        awaitIdle(worker);
        queue.acknowledgementsFail = true;

        worker.stop();

        queue.recover();
        assertThat(worker.flushAcknowledgements()).as("nothing left to send after stop").isZero();
        assertThat(queue.acknowledgementsSent).isEmpty();
    }

    @Test
    void aWorkerNeedsAPositiveLease() {
        assertThatThrownBy(() -> new WorkerSettings("w1", 2, Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(10),
                Duration.ZERO, 1024, RETRY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lease must be positive, was PT0S");
    }

    /** Forwards every call; a test overrides the one it watches. */
    static class DelegatingRunQueue implements RunQueue {
        private final RunQueue delegate;

        DelegatingRunQueue(RunQueue delegate) {
            this.delegate = delegate;
        }

        @Override
        public List<Run> claim(String workerId, Set<String> executors, io.forgeflow.domain.queue.QueueSelection queues,
                               int limit, Duration lease) {
            return delegate.claim(workerId, executors, queues, limit, lease);
        }

        @Override
        public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
            return delegate.acknowledge(acks);
        }

        @Override
        public Heartbeat heartbeat(String workerId, Duration lease) {
            return delegate.heartbeat(workerId, lease);
        }

        @Override
        public Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease) {
            return delegate.heartbeat(workerId, held, lease);
        }

        @Override
        public Set<String> cancellationsFor(String workerId) {
            return delegate.cancellationsFor(workerId);
        }

        @Override
        public Set<RunFence> release(Collection<RunFence> fences) {
            return delegate.release(fences);
        }

        @Override
        public List<io.forgeflow.domain.port.ExpiredLease> expiredLeases(int limit) {
            return delegate.expiredLeases(limit);
        }

        @Override
        public Set<RunFence> recover(Collection<Acknowledgement> decisions) {
            return delegate.recover(decisions);
        }
    }
}
