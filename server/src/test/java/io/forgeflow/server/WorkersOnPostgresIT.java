package io.forgeflow.server;

import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresRunRepository;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Real workers (the application's Worker) on the real claim engine: races, priorities, crashes, late writes. */
class WorkersOnPostgresIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), null);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null);
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stopWorkers() {
        started.forEach(Worker::stop);
    }

    @Test
    void tenWorkersRacingOverTwoThousandRunsExecuteEachExactlyOnce() {
        List<Run> seeded = seed(2000, 5, "count");
        CountingExecutor counting = new CountingExecutor();
        for (int i = 0; i < 10; i++) {
            start(worker("racer-" + i, 4, Duration.ofSeconds(30), counting));
        }
        await(Duration.ofSeconds(90), () -> runs.countByStatus().get(RunStatus.SUCCEEDED) == 2000);

        assertThat(counting.executions).hasSize(2000);
        assertThat(counting.executions.values()).allMatch(n -> n.get() == 1);
        assertThat(counting.executions.keySet()).containsExactlyInAnyOrderElementsOf(seeded.stream().map(Run::id).toList());
        List<Integer> attempts = pg.jdbi().withHandle(h -> h.createQuery("SELECT attempt FROM runs").mapTo(Integer.class).list());
        assertThat(attempts).hasSize(2000).containsOnly(1);
        long workersUsed = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(DISTINCT worker_id) FROM run_attempts")
                .mapTo(Long.class).one());
        assertThat(workersUsed).isGreaterThan(1);
    }

    @Test
    void withOneSlotEveryPriorityOneRunStartsBeforeAnyPriorityNineRunDueAtTheSameTime() {
        seed(20, 9, "order");
        seed(20, 1, "order");
        RecordingExecutor order = new RecordingExecutor();
        start(worker("single-slot", 1, Duration.ofSeconds(30), order));
        await(Duration.ofSeconds(60), () -> order.priorities.size() == 40);
        assertThat(order.priorities.subList(0, 20)).containsOnly(1);
        assertThat(order.priorities.subList(20, 40)).containsOnly(9);
    }

    @Test
    void aWorkerThatStopsHeartbeatingLosesItsRunToAnotherAndItsLateResultChangesNothing() throws Exception {
        Run run = seed(1, 5, "slow").get(0);
        CountDownLatch aStarted = new CountDownLatch(1);
        CountDownLatch releaseA = new CountDownLatch(1);
        RunExecutor stuck = new NamedExecutor("slow", ctx -> {
            aStarted.countDown();
            try {
                releaseA.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExecutionResult.succeeded("late success from A");
        });
        // worker A: claims, then never heartbeats (its threads are not started); its lease is 1 s
        Worker a = worker("worker-a", 1, Duration.ofSeconds(1), stuck);
        assertThat(a.claimOnce()).isEqualTo(1);
        assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();

        LeaseRescuer rescuer = new LeaseRescuer(queue, FakeLeaderElection.leading(),
                new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1)), null);
        await(Duration.ofSeconds(20), () -> rescuer.runOnce() == 1);

        RecordingExecutor b = new RecordingExecutor("slow");
        Worker workerB = worker("worker-b", 1, Duration.ofSeconds(30), b);
        await(Duration.ofSeconds(20), () -> workerB.claimOnce() == 1);
        await(Duration.ofSeconds(20), () -> workerB.flushAcknowledgements() == 1);
        assertThat(runs.find(run.id()).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);

        releaseA.countDown(); // A finishes late and tries to acknowledge attempt 1
        await(Duration.ofSeconds(20), () -> a.busySlots() == 0);
        a.flushAcknowledgements();

        Run after = runs.find(run.id()).orElseThrow();
        assertThat(after.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(after.output()).isEqualTo("ok").doesNotContain("late success from A");
        assertThat(after.attempt()).isEqualTo(2);
        List<Attempt> history = runs.attempts(run.id());
        assertThat(history).extracting(Attempt::outcome).containsExactly(AttemptOutcome.LEASE_EXPIRED, AttemptOutcome.SUCCEEDED);
        assertThat(history).extracting(Attempt::workerId).containsExactly("worker-a", "worker-b");
        a.stop();
        workerB.stop();
    }

    @Test
    void aJobThatKillsItsWorkerEveryTimeEndsDeadAfterMaxAttempts() {
        Run run = seedOne(3, "deadly");
        LeaseRescuer rescuer = new LeaseRescuer(queue, FakeLeaderElection.leading(),
                new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1)), null);
        for (int attempt = 1; attempt <= 3; attempt++) {
            // each attempt's worker "dies": it claims and is never heard of again
            Worker doomed = worker("doomed-" + attempt, 1, Duration.ofMillis(500),
                    new NamedExecutor("deadly", FakeBlock::forever));
            await(Duration.ofSeconds(20), () -> doomed.claimOnce() == 1);
            await(Duration.ofSeconds(20), () -> rescuer.runOnce() == 1);
        }
        Run dead = runs.find(run.id()).orElseThrow();
        assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
        assertThat(dead.attempt()).isEqualTo(3);
        assertThat(runs.attempts(run.id())).extracting(Attempt::outcome).containsOnly(AttemptOutcome.LEASE_EXPIRED).hasSize(3);
    }

    @Test
    void aWorkerNeverClaimsARunOfAnExecutorItDoesNotRun() {
        Run shellRun = seedOne(3, "shell");
        Run httpRun = seedOne(3, "http");
        RecordingExecutor http = new RecordingExecutor("http");
        Worker httpOnly = worker("http-only", 4, Duration.ofSeconds(30), http);
        assertThat(httpOnly.claimOnce()).isEqualTo(1);
        await(Duration.ofSeconds(20), () -> httpOnly.busySlots() == 0);
        assertThat(httpOnly.claimOnce()).isZero();
        assertThat(runs.find(httpRun.id()).orElseThrow().status()).isIn(RunStatus.RUNNING, RunStatus.SUCCEEDED);
        assertThat(runs.find(shellRun.id()).orElseThrow().status()).isEqualTo(RunStatus.PENDING);
        httpOnly.stop();
    }

    // ---------------------------------------------------------------------------------------------------------

    Worker worker(String id, int slots, Duration lease, RunExecutor executor) {
        Duration heartbeat = lease.dividedBy(3);
        WorkerSettings settings = new WorkerSettings(id, slots, Duration.ofMillis(50), lease, heartbeat,
                Duration.ofSeconds(2), 64 * 1024, new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(100)));
        return new Worker(settings, queue, new ExecutorRegistry(List.of(executor), Set.of()), new CountingWorkSignal(),
                new SplittableRandom(1), null);
    }

    void start(Worker w) {
        started.add(w);
        w.start();
    }

    List<Run> seed(int n, int priority, String executor) {
        Instant due = Instant.now().minusSeconds(1);
        List<Run> batch = new ArrayList<>();
        String jobId = pg.insert(io.forgeflow.adapter.postgres.testing.TestJobs.aJob().withExecutor(executor)).id();
        for (int i = 0; i < n; i++) {
            batch.add(Run.pending(Ids.newId(due.plusMillis(i)), jobId, 3, priority, due, executor, Map.of("i", i), 60, due));
        }
        return pg.insertAll(batch);
    }

    Run seedOne(int maxAttempts, String executor) {
        Instant due = Instant.now().minusSeconds(1);
        String jobId = pg.insert(io.forgeflow.adapter.postgres.testing.TestJobs.aJob().withExecutor(executor)).id();
        return pg.insert(Run.pending(Ids.newId(due), jobId, maxAttempts, 5, due, executor, Map.of(), 60, due));
    }

    static void await(Duration max, BooleanSupplier condition) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + max);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20); // polling a condition, not waiting for a fixed time
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Blocks like a hung process until cancelled. */
    static final class FakeBlock {
        static ExecutionResult forever(ExecutionContext ctx) {
            CountDownLatch never = new CountDownLatch(1);
            ctx.cancellation().onCancel(never::countDown);
            try {
                never.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExecutionResult.cancelled("", ctx.cancellation().reason());
        }
    }

    record NamedExecutor(String name, java.util.function.Function<ExecutionContext, ExecutionResult> body) implements RunExecutor {
        @Override
        public void validate(Map<String, Object> payload) {
        }

        @Override
        public ExecutionResult execute(ExecutionContext context) {
            return body.apply(context);
        }
    }

    static final class CountingExecutor implements RunExecutor {
        final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "count";
        }

        @Override
        public void validate(Map<String, Object> payload) {
        }

        @Override
        public ExecutionResult execute(ExecutionContext context) {
            executions.computeIfAbsent(context.runId(), k -> new AtomicInteger()).incrementAndGet();
            return ExecutionResult.succeeded("ok");
        }
    }

    final class RecordingExecutor implements RunExecutor {
        final List<Integer> priorities = Collections.synchronizedList(new ArrayList<>());
        private final String name;

        RecordingExecutor() {
            this("order");
        }

        RecordingExecutor(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void validate(Map<String, Object> payload) {
        }

        @Override
        public ExecutionResult execute(ExecutionContext context) {
            priorities.add(runs.find(context.runId()).orElseThrow().priority());
            return ExecutionResult.succeeded("ok");
        }
    }
}
