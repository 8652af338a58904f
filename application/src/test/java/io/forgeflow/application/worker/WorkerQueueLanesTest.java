package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker with queue lanes (FORGEFLOW_QUEUES) on the in-memory fakes: each lane claims runs of its queues into its
 * own slots only, so a busy queue cannot crowd out another and a lane's slots stay free for its queue. Executions are
 * held at a gate per queue, and the executor counts how many runs of each queue execute at once.
 */
class WorkerQueueLanesTest {
    static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    final Scenario s = new Scenario();
    final Map<String, Gate> gates = new ConcurrentHashMap<>(Map.of("reports", new Gate(), "default", new Gate()));
    final Map<String, AtomicInteger> executing = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> mostAtOnce = new ConcurrentHashMap<>();
    final List<Worker> started = new ArrayList<>();

    WorkerQueueLanesTest() {
        s.shell.byDefault(ctx -> {
            String queue = (String) ctx.payload().get("queue");
            if (Boolean.TRUE.equals(ctx.payload().get("quick"))) {
                return ExecutionResult.succeeded("quick");
            }
            int now = executing.computeIfAbsent(queue, q -> new AtomicInteger()).incrementAndGet();
            mostAtOnce.computeIfAbsent(queue, q -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            try {
                Function<ExecutionContext, ExecutionResult> held = gates.get(queue).then(ExecutionResult.succeeded("done"));
                return held.apply(ctx);
            } finally {
                executing.get(queue).decrementAndGet();
            }
        });
    }

    @AfterEach
    void stopEveryWorker() {
        gates.values().forEach(Gate::open);
        started.forEach(Worker::stop);
    }

    /** A worker "w1" whose lanes FORGEFLOW_QUEUES {@code spec} describes, with {@code defaultSlots} shared slots. */
    Worker worker(String spec, int defaultSlots) {
        WorkerSettings settings = new WorkerSettings("w1", defaultSlots, Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(10), Duration.ofMillis(200), 1024, RETRY).withLanes(QueueLane.parse(spec, defaultSlots));
        Worker worker = new Worker(settings, s.store.queue(), s.executors, s.signal, new SplittableRandom(7), null);
        started.add(worker);
        return worker;
    }

    /** {@code n} run-now jobs in {@code queue}; returns their runs. */
    List<Run> runsIn(String queue, int n) {
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Job job = s.submit(aDraft().inQueue(queue).withPayload(Map.of("command", "true", "queue", queue)));
            runs.add(s.onlyRunOf(job.id()));
        }
        return runs;
    }

    long running(List<Run> runs) {
        return runs.stream().map(r -> s.run(r.id())).filter(r -> r.status() == RunStatus.RUNNING).count();
    }

    int mostAtOnce(String queue) {
        AtomicInteger most = mostAtOnce.get(queue);
        return most == null ? 0 : most.get();
    }

    @Test
    void aLanesRunsNeverExceedItsSlotsWhileTheOtherLaneFillsItsOwn() {
        List<Run> reports = runsIn("reports", 3);
        List<Run> others = runsIn("default", 4);
        Worker worker = worker("reports=1,*", 2);

        assertThat(worker.claimOnce()).isEqualTo(3);
        Await.until("one report and two other runs execute", () -> gates.get("reports").entered() == 1
                && gates.get("default").entered() == 2);
        assertThat(worker.claimOnce()).as("every lane is full").isZero();

        assertThat(running(reports)).isEqualTo(1);
        assertThat(running(others)).isEqualTo(2);
        assertThat(mostAtOnce("reports")).isEqualTo(1);
        assertThat(mostAtOnce("default")).isEqualTo(2);
    }

    @Test
    void runsOfOtherQueuesNeverTakeALanesSlots() {
        List<Run> others = runsIn("default", 5);
        Worker worker = worker("reports=1,*", 2);

        assertThat(worker.claimOnce()).as("only the shared lane's two slots").isEqualTo(2);
        assertThat(worker.claimOnce()).isZero();
        assertThat(running(others)).isEqualTo(2);

        Run report = runsIn("reports", 1).get(0);

        assertThat(worker.claimOnce()).as("the reports slot was kept free").isEqualTo(1);
        assertThat(s.run(report.id()).status()).isEqualTo(RunStatus.RUNNING);
        assertThat(running(others)).isEqualTo(2);
    }

    @Test
    void aLaneFreesItsSlotWhenItsRunEndsAndTakesTheNextRunOfItsQueue() {
        List<Run> reports = runsIn("reports", 2);
        Worker worker = worker("reports=1,*", 2);
        assertThat(worker.claimOnce()).isEqualTo(1);
        Await.until("the first report executes", () -> gates.get("reports").entered() == 1);

        gates.get("reports").open();
        Await.until("the first report ended", () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);

        assertThat(worker.claimOnce()).isEqualTo(1);
        Await.until("every report ended", () -> worker.busySlots() == 0);
        worker.flushAcknowledgements();
        assertThat(reports).extracting(r -> s.run(r.id()).status()).containsOnly(RunStatus.SUCCEEDED);
    }

    @Test
    void aWorkerListingOnlyNamedQueuesLeavesEveryOtherQueueToOtherWorkers() {
        Run other = runsIn("default", 1).get(0);
        Run hook = runsIn("webhooks", 1).get(0);
        Worker worker = worker("reports=1,webhooks=2", 16);

        assertThat(worker.claimOnce()).isEqualTo(1);

        assertThat(s.run(hook.id()).status()).isEqualTo(RunStatus.RUNNING);
        assertThat(s.run(other.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    @Test
    void queuesListedWithoutCountsShareTheDefaultSlots() {
        List<Run> reports = runsIn("reports", 3);
        List<Run> hooks = runsIn("webhooks", 3);
        runsIn("default", 3);
        Worker worker = worker("reports,webhooks", 4);

        assertThat(worker.claimOnce()).isEqualTo(4);

        assertThat(running(reports) + running(hooks)).isEqualTo(4);
    }

    @Test
    void aPausedQueueIsSkippedByItsLaneWhileTheOtherLanesGoOn() {
        Run report = runsIn("reports", 1).get(0);
        runsIn("default", 1);
        s.store.queues().setPaused("default", "reports", true);
        Worker worker = worker("reports=1,*", 1);

        assertThat(worker.claimOnce()).isEqualTo(1);

        assertThat(s.run(report.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    /** Each lane executes on threads of its own: runs a lane holds ready wait for them, not for another lane's. */
    @Test
    void aLaneNeverExecutesMoreRunsThanItsSlotsEvenWhenAttemptsAreShort() {
        Worker worker = worker("reports=1,*", 1);
        s.submit(aDraft().inQueue("reports").withPayload(Map.of("command", "true", "queue", "reports", "quick", true)));
        assertThat(worker.claimOnce()).isEqualTo(1);
        Await.until("the quick run ended", () -> worker.busySlots() == 0);
        worker.flushAcknowledgements(); // attempts now average well under 50 ms: the worker prefetches
        runsIn("reports", 3);

        worker.claimOnce();
        Await.until("a report executes", () -> gates.get("reports").entered() >= 1);
        boolean second = awaitQuietly(Duration.ofSeconds(1), () -> gates.get("reports").entered() >= 2);

        assertThat(second).as("a second run of the one-slot reports lane started executing").isFalse();
        assertThat(mostAtOnce("reports")).isEqualTo(1);
    }

    /** Whether {@code condition} came true within {@code timeout}. */
    private static boolean awaitQuietly(Duration timeout, java.util.function.BooleanSupplier condition) {
        try {
            Await.until("condition", timeout, condition);
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }
}
