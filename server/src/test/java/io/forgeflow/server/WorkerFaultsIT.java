package io.forgeflow.server;

import io.forgeflow.adapter.executor.ShellRunExecutor;
import io.forgeflow.adapter.postgres.PostgresJdbi;
import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresRunRepository;
import io.forgeflow.adapter.postgres.PostgresSchema;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestJobs;
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
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real workers on PostgreSQL through a {@link FaultProxy}: a claim whose reply is lost, and a database that goes
 * silent (packets dropped) while a shell job runs.
 */
class WorkerFaultsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final FaultProxy proxy = FaultProxyIT.open();
    final PostgresRunQueue direct = new PostgresRunQueue(pg.jdbi(), null);
    final PostgresRunQueue proxied = new PostgresRunQueue(PostgresJdbi.create(proxiedDataSource()), null);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null);
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stop() {
        proxy.pass();
        started.forEach(Worker::stop);
        proxy.close();
    }

    @Test
    void runsOfAClaimWhoseReplyWasLostAreBackToPendingWithinOneLeaseAndEachRunsOnce() {
        List<Run> seeded = seed(4, "count", Map.of()); // as many as the slots: one claim takes them all
        Counting counting = new Counting();
        proxy.dropReplyTo("forgeflow_claim");
        Duration lease = Duration.ofSeconds(6); // with heartbeats every second: trusted for 5 s after each
        Worker worker = worker("lossy", 4, lease, Duration.ofSeconds(1), proxied, counting);
        start(worker);

        await(Duration.ofSeconds(20), () -> proxy.droppedReplies() == 1);
        long lostAt = System.nanoTime();
        await(lease, () -> countRunningAtAttempt(1) == 0);
        assertThat(Duration.ofNanos(System.nanoTime() - lostAt)).as("back within one lease").isLessThan(lease);

        await(Duration.ofSeconds(30), () -> runs.countByStatus().getOrDefault(RunStatus.SUCCEEDED, 0L) == 4);
        assertThat(counting.executions.values()).hasSize(4).allMatch(n -> n.get() == 1);
        for (Run run : seeded) {
            assertThat(runs.attempts(run.id())).extracting(Attempt::outcome)
                    .containsExactly(AttemptOutcome.RELEASED, AttemptOutcome.SUCCEEDED);
        }
        assertThat(worker.busySlots()).isZero();
    }

    @Test
    void aWorkerCutOffFromTheDatabaseKillsItsShellJobBeforeItsLeaseExpiresAndAnotherWorkerRunsIt() throws Exception {
        String marker = "60." + (100_000 + System.nanoTime() % 900_000); // sleep 60 s, a unique command line
        Run run = seed(1, "shell", Map.of("command", "sleep " + marker)).get(0);
        Duration lease = Duration.ofSeconds(6); // with heartbeats every second: trusted for 5 s after each
        ShellRunExecutor shell = new ShellRunExecutor();
        Worker cutOff = worker("cut-off", 1, lease, Duration.ofSeconds(1), proxied, shell);
        start(cutOff);
        await(Duration.ofSeconds(20), () -> processes(marker) == 1);
        await(Duration.ofSeconds(20), () -> heartbeatSeen(run.id(), lease));

        proxy.blackhole();
        Instant leaseExpiresAt = runs.find(run.id()).orElseThrow().leaseExpiresAt();
        long blackholeEnds = System.nanoTime() + lease.multipliedBy(3).toNanos();
        Instant killedAt = null;
        Worker other = null;
        LeaseRescuer rescuer = new LeaseRescuer(direct, FakeLeaderElection.leading(),
                new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1)), null);
        while (System.nanoTime() < blackholeEnds || other == null || processes(marker) == 0) {
            int alive = processes(marker);
            assertThat(alive).as("never two processes of the run").isLessThanOrEqualTo(1);
            if (alive == 0 && killedAt == null) {
                killedAt = Instant.now();
            }
            if (killedAt != null && other == null && rescuer.runOnce() == 1) {
                other = worker("other", 1, Duration.ofSeconds(30), Duration.ofSeconds(10), direct, shell);
                start(other);
            }
            assertThat(System.nanoTime() - blackholeEnds).as("the run moved on in time")
                    .isLessThan(Duration.ofSeconds(30).toNanos());
            TimeUnit.MILLISECONDS.sleep(20); // sampling the process table, not waiting for a fixed time
        }
        proxy.pass();

        assertThat(killedAt).as("killed before its lease, as the database saw it, could have expired")
                .isBefore(leaseExpiresAt);
        Run now = runs.find(run.id()).orElseThrow();
        assertThat(now.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(now.workerId()).isEqualTo("other");
        assertThat(now.attempt()).isEqualTo(2);
        assertThat(runs.attempts(run.id()).get(0).outcome()).as("never acknowledged by the cut-off worker")
                .isEqualTo(AttemptOutcome.LEASE_EXPIRED);
    }

    Worker worker(String id, int slots, Duration lease, Duration heartbeat, PostgresRunQueue queue,
                  RunExecutor executor) {
        WorkerSettings settings = new WorkerSettings(id, slots, Duration.ofMillis(200), lease, heartbeat,
                Duration.ZERO, 64 * 1024, new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(100)));
        return new Worker(settings, queue, new ExecutorRegistry(List.of(executor), Set.of()), new CountingWorkSignal(),
                new SplittableRandom(1), null);
    }

    void start(Worker w) {
        started.add(w);
        w.start();
    }

    List<Run> seed(int n, String executor, Map<String, Object> payload) {
        Instant due = Instant.now().minusSeconds(1);
        String jobId = pg.insert(TestJobs.aJob().withExecutor(executor)).id();
        List<Run> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Run.pending(Ids.newId(due.plusMillis(i)), jobId, 3, 5, due, executor, payload, 120, due));
        }
        return pg.insertAll(batch);
    }

    long countRunningAtAttempt(int attempt) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM runs WHERE status = 'running' AND "
                + "attempt = :attempt").bind("attempt", attempt).mapTo(Long.class).one());
    }

    /** Whether a heartbeat has extended the run's lease since its claim. */
    boolean heartbeatSeen(String runId, Duration lease) {
        // the running attempt started when the run did (its attempt row is written when it ends)
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT coalesce(r.lease_expires_at > r.started_at + "
                + lease.toMillis() + " * interval '1 ms', false) "
                + "FROM runs r WHERE r.id = CAST(:id AS uuid)").bind("id", runId).mapTo(Boolean.class).findOne().orElse(false));
    }

    /** Running instances of the job: processes whose command line has the marker and whose parent's has not. */
    static int processes(String marker) {
        return (int) ProcessHandle.allProcesses().filter(p -> has(p, marker))
                .filter(p -> p.parent().map(parent -> !has(parent, marker)).orElse(true)).count();
    }

    private static boolean has(ProcessHandle p, String marker) {
        return p.isAlive() && p.info().commandLine().map(c -> c.contains(marker)).orElse(false);
    }

    private DataSource proxiedDataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(proxy.jdbcUrl(pg.databaseName()));
        ds.setUser(pg.user());
        if (!pg.password().isEmpty()) {
            ds.setPassword(pg.password());
        }
        ds.setSocketTimeout(5);
        ds.setConnectTimeout(5);
        ds.setCurrentSchema(PostgresSchema.DEFAULT);
        return ds;
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

    /** Counts executions per run. */
    static final class Counting implements RunExecutor {
        final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "count";
        }

        @Override
        public void validate(Map<String, Object> payload) {
            // any payload
        }

        @Override
        public ExecutionResult execute(ExecutionContext context) {
            executions.computeIfAbsent(context.runId(), k -> new AtomicInteger()).incrementAndGet();
            return ExecutionResult.succeeded("ok");
        }
    }
}
