package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claimer's wait after a round that left room: the poll interval, or until the earliest run it could take
 * becomes due, whichever comes first. The in-memory queue tells due times on the scenario's clock; the worker turns
 * them into its own (monotonic) deadlines, so the waits are checked as ranges.
 */
class WorkerWakeUpTimerTest {
    static final Duration POLL = Duration.ofSeconds(10);
    static final Duration SLACK = Duration.ofMillis(500);

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stopEveryWorker() {
        started.forEach(Worker::stop);
    }

    Worker worker(RetryPolicy retry) {
        WorkerSettings settings = new WorkerSettings("w1", 2, POLL, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMillis(200), 1024, retry);
        return worker(settings, s.executors);
    }

    Worker worker(WorkerSettings settings, ExecutorRegistry executors) {
        return worker(settings, executors, new SplittableRandom(1));
    }

    Worker worker(WorkerSettings settings, ExecutorRegistry executors, java.util.random.RandomGenerator random) {
        Worker worker = new Worker(settings, queue, executors, s.signal, random, null);
        started.add(worker);
        return worker;
    }

    Worker worker() {
        return worker(new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15)));
    }

    @Test
    void withNothingScheduledItWaitsThePollInterval() {
        assertThat(worker().claimer().idleWait()).isEqualTo(POLL);
    }

    @Test
    void aRunDueBeforeTheNextPollIsWaitedForNotPolledFor() {
        s.submit(aDraft().runAt(s.clock.instant().plusSeconds(3)));
        Worker worker = worker();

        assertThat(worker.claimer().idleWait()).isBetween(Duration.ofSeconds(3).minus(SLACK), Duration.ofSeconds(3));
        assertThat(worker.claimOnce()).as("not due yet").isZero();

        s.advance(Duration.ofSeconds(3));
        assertThat(worker.claimOnce()).as("due when the timer fires").isEqualTo(1);
    }

    @Test
    void aRunDueAfterTheNextPollLeavesThePollInterval() {
        s.submit(aDraft().runAt(s.clock.instant().plusSeconds(60)));

        assertThat(worker().claimer().idleWait()).isEqualTo(POLL);
    }

    @Test
    void theEarliestOfSeveralScheduledRunsSetsTheTimer() {
        s.submit(aDraft().runAt(s.clock.instant().plusSeconds(8)));
        s.submit(aDraft().runAt(s.clock.instant().plusSeconds(2)));
        s.submit(aDraft().runAt(s.clock.instant().plusSeconds(5)));

        assertThat(worker().claimer().idleWait()).isBetween(Duration.ofSeconds(2).minus(SLACK), Duration.ofSeconds(2));
    }

    @Test
    void runsItCouldNotTakeDoNotSetTheTimer() {
        s.submit(aDraft().withExecutor("http").runAt(s.clock.instant().plusSeconds(2)));
        Worker shellOnly = worker(new WorkerSettings("w1", 2, POLL, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMillis(200), 1024, new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15))),
                new ExecutorRegistry(List.of(s.shell, s.http), Set.of("shell")));

        assertThat(shellOnly.claimer().idleWait()).isEqualTo(POLL);
    }

    @Test
    void theQueueIsAskedAtMostOncePerPollIntervalWhileNothingIsDue() {
        Worker worker = worker();
        worker.claimer().idleWait();
        worker.claimer().idleWait();
        worker.claimer().idleWait();

        assertThat(queue.nextDueQueries.get()).isEqualTo(1);
    }

    @Test
    void theQueueIsAskedAgainOnceTheTimeItToldHasCome() {
        s.submit(aDraft().runAt(s.clock.instant().plusMillis(20)));
        Worker worker = worker();
        worker.claimer().idleWait();
        s.advance(Duration.ofMillis(20));
        Await.until("the run's due time passes on the worker's clock too", () -> {
            worker.claimer().idleWait();
            return queue.nextDueQueries.get() >= 2;
        });

        assertThat(worker.claimOnce()).isEqualTo(1);
        assertThat(worker.claimer().idleWait()).as("nothing else scheduled").isEqualTo(POLL);
    }

    @Test
    void aRetryThisWorkerAcknowledgedIsWaitedFor() {
        // every failure retries after at most 1 s (full jitter): well before the 10 s poll
        Worker worker = worker(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1)));
        s.shell.byDefault(ctx -> ExecutionResult.failed("", "boom"));
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        assertThat(worker.claimOnce()).isEqualTo(1);
        Await.until("the attempt ends", () -> worker.busySlots() == 0);
        worker.flushAcknowledgements();
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.PENDING);

        assertThat(worker.claimer().idleWait()).isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theSoonerOfTwoRetriesAcknowledgedTogetherSetsTheTimer() {
        queue.nextDueFails = true; // only the worker's own knowledge of its retries can set the timer
        Worker worker = worker(new WorkerSettings("w1", 2, POLL, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMillis(200), 1024, new RetryPolicy(Duration.ofSeconds(10), Duration.ofSeconds(10))),
                s.executors, new Draws(9_000, 2_000));
        s.shell.byDefault(ctx -> ExecutionResult.failed("", "boom"));
        s.submit(aDraft());
        s.submit(aDraft());
        assertThat(worker.claimOnce()).isEqualTo(2);
        Await.until("both attempts end", () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(2);

        assertThat(worker.claimer().idleWait()).isBetween(Duration.ofSeconds(2).minus(SLACK), Duration.ofSeconds(2));
    }

    @Test
    void aRetryDueBeforeTheQueuesEarliestRunSetsTheTimer() {
        Worker worker = afterARetryIn(2_000, Duration.ofSeconds(5));

        assertThat(worker.claimer().idleWait()).isBetween(Duration.ofSeconds(2).minus(SLACK), Duration.ofSeconds(2));
    }

    @Test
    void theQueuesEarliestRunBeforeARetrySetsTheTimer() {
        Worker worker = afterARetryIn(6_000, Duration.ofSeconds(1));

        assertThat(worker.claimer().idleWait()).isBetween(Duration.ofSeconds(1).minus(SLACK), Duration.ofSeconds(1));
    }

    /** A one-slot worker that acknowledged a failure retrying in {@code retryMillis}; the queue tells {@code next}. */
    private Worker afterARetryIn(long retryMillis, Duration next) {
        queue.nextDueAnswer = next;
        Worker worker = worker(new WorkerSettings("w1", 1, POLL, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMillis(200), 1024, new RetryPolicy(Duration.ofSeconds(10), Duration.ofSeconds(10))),
                s.executors, new Draws(retryMillis));
        s.shell.byDefault(ctx -> ExecutionResult.failed("", "boom"));
        s.submit(aDraft());
        assertThat(worker.claimOnce()).isEqualTo(1);
        Await.until("the attempt ends", () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        return worker;
    }

    /** Retry delays drawn in the given order (milliseconds), whatever the bound; thread-safe. */
    static final class Draws implements java.util.random.RandomGenerator {
        private final long[] millis;
        private final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();

        Draws(long... millis) {
            this.millis = millis;
        }

        @Override
        public long nextLong() {
            throw new UnsupportedOperationException("only bounded draws");
        }

        @Override
        public long nextLong(long bound) {
            return Math.min(bound - 1, millis[next.getAndIncrement() % millis.length]);
        }
    }

    @Test
    void whenTheQueueCannotTellItPolls() {
        queue.nextDueFails = true;
        s.submit(aDraft().runAt(s.clock.instant().plusSeconds(3)));

        assertThat(worker().claimer().idleWait()).isEqualTo(POLL);
    }

    @Test
    void eachQueueLaneIsAskedForItsOwnSelection() {
        WorkerSettings settings = new WorkerSettings("w1", 4, POLL, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMillis(200), 1024, new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15)))
                .withLanes(QueueLane.parse("emails=1,*", 3));
        Worker worker = worker(settings, s.executors);

        worker.claimer().idleWait();

        assertThat(queue.nextDueSelections).hasSize(2).doesNotHaveDuplicates()
                .allSatisfy(selection -> assertThat(selection).isNotNull().isInstanceOf(QueueSelection.class));
    }
}
