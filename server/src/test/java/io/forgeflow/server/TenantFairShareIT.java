package io.forgeflow.server;

import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresTenantRepository;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestJobs;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.worker.QueueLane;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.tenant.TenantSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 42's fair share on the real claim engine and real workers: tenant acme has 20,000 due no-op runs, then tenant
 * beta submits 100; one worker with 4 slots. Every run of beta starts within 2 s of its submission, and beta's share
 * of the starts while both have due runs is within 10 % of its weight's share. A tenant's max_running and rate limit
 * hold across two workers.
 */
class TenantFairShareIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), null);
    final PostgresTenantRepository tenants = new PostgresTenantRepository(pg.jdbi(), null);
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(Worker::stop);
    }

    @ParameterizedTest(name = "acme {0} : beta {1}")
    @CsvSource({"1, 1", "1, 3"})
    void aSmallTenantIsServedBesideAFloodInProportionToItsWeight(int acmeWeight, int betaWeight) throws Exception {
        tenants.configure("acme", true, false, false, new TenantSettings(acmeWeight, null, null));
        tenants.configure("beta", true, false, false, new TenantSettings(betaWeight, null, null));
        seed("acme", 20_000);
        Worker worker = worker();
        started.add(worker);
        worker.start();
        await(Duration.ofSeconds(30), () -> count("SELECT count(*) FROM runs WHERE status = 'succeeded'") >= 200);

        OffsetDateTime submitted = pg.jdbi().withHandle(h -> h.createQuery("SELECT clock_timestamp()")
                .mapTo(OffsetDateTime.class).one());
        seed("beta", 100);
        await(Duration.ofSeconds(30), () -> count("SELECT count(*) FROM runs WHERE tenant = 'beta' "
                + "AND status = 'succeeded'") == 100);

        OffsetDateTime lastBeta = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT max(started_at) FROM runs WHERE tenant = 'beta'").mapTo(OffsetDateTime.class).one());
        assertThat(Duration.between(submitted, lastBeta)).as("beta's last start after its submission")
                .isLessThan(Duration.ofSeconds(2));
        assertThat(count("SELECT count(*) FROM runs WHERE tenant = 'acme' AND status = 'pending'"))
                .as("acme still had due runs when beta's last run started").isPositive();
        // while both had due runs: from beta's first start (its runs are visible once their insert commits) to its last
        OffsetDateTime firstBeta = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT min(started_at) FROM runs WHERE tenant = 'beta'").mapTo(OffsetDateTime.class).one());
        long acmeMeanwhile = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM runs "
                        + "WHERE tenant = 'acme' AND started_at >= :from AND started_at <= :to")
                .bind("from", firstBeta).bind("to", lastBeta).mapTo(Long.class).one());
        double betaShare = 100.0 / (100 + acmeMeanwhile);
        double weightShare = (double) betaWeight / (acmeWeight + betaWeight);
        assertThat(betaShare).as("beta's share of the starts (acme started %d meanwhile)", acmeMeanwhile)
                .isBetween(weightShare * 0.9, weightShare * 1.1);
    }

    @org.junit.jupiter.api.Test
    void aTenantsMaxRunningAndRateLimitHoldAcrossTwoWorkersWhileOthersRunFreely() throws Exception {
        tenants.configure("capped", false, true, false, new TenantSettings(1, 2, null));
        tenants.configure("rated", false, false, true, new TenantSettings(1, null,
                new io.forgeflow.domain.queue.RateLimit(5, 2)));
        seed("capped", 20);
        seed("rated", 15);
        seed("free", 40);
        java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicInteger> now =
                new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicInteger> most =
                new java.util.concurrent.ConcurrentHashMap<>();
        for (int i = 0; i < 2; i++) {
            Worker w = worker("w" + i, 8, context -> {
                String tenant = pg.jdbi().withHandle(h -> h.createQuery(
                        "SELECT tenant FROM runs WHERE id = CAST(:id AS uuid)").bind("id", context.runId())
                        .mapTo(String.class).one());
                int n = now.computeIfAbsent(tenant, t -> new java.util.concurrent.atomic.AtomicInteger())
                        .incrementAndGet();
                most.computeIfAbsent(tenant, t -> new java.util.concurrent.atomic.AtomicInteger())
                        .accumulateAndGet(n, Math::max);
                try {
                    TimeUnit.MILLISECONDS.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    now.get(tenant).decrementAndGet();
                }
                return ExecutionResult.succeeded("ok");
            });
            started.add(w);
            w.start();
        }

        await(Duration.ofSeconds(60), () -> count("SELECT count(*) FROM runs WHERE status = 'succeeded'") == 75);

        assertThat(most.get("capped").get()).as("capped's runs running at once, on both workers").isEqualTo(2);
        assertThat(most.get("free").get()).as("free is not held back").isGreaterThan(2);
        long worstWindow = pg.jdbi().withHandle(h -> h.createQuery("SELECT max((SELECT count(*) FROM runs b "
                        + "WHERE b.tenant = 'rated' AND b.started_at >= a.started_at "
                        + "AND b.started_at < a.started_at + interval '2 seconds')) FROM runs a WHERE a.tenant = 'rated'")
                .mapTo(Long.class).one());
        assertThat(worstWindow).as("rated's starts in any two seconds, on both workers").isEqualTo(5);
    }

    /** {@code n} due runs of a new job of {@code tenant} (a run's tenant is its job's, copied when it is inserted). */
    void seed(String tenant, int n) {
        Job job = pg.insert(TestJobs.aJob().withExecutor("noop"));
        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET tenant = ? WHERE id = CAST(? AS uuid)", tenant,
                job.id()));
        Instant due = Instant.now().minusSeconds(1);
        List<Run> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Run.pending(Ids.newId(due.plusMillis(i)), job.id(), 3, 5, due, "noop", Map.of(), 60, due));
            if (batch.size() == 2_000 || i == n - 1) {
                pg.insertAll(batch);
                batch.clear();
            }
        }
    }

    long count(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    Worker worker() {
        return worker("fair", 4, context -> ExecutionResult.succeeded("ok"));
    }

    Worker worker(String id, int slots, java.util.function.Function<ExecutionContext, ExecutionResult> body) {
        Duration lease = Duration.ofSeconds(30);
        WorkerSettings settings = new WorkerSettings(id, slots, Duration.ofMillis(50), lease, lease.dividedBy(3),
                Duration.ofSeconds(2), 64 * 1024, new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(100)))
                .withLanes(QueueLane.all(slots));
        RunExecutor noop = new RunExecutor() {
            @Override
            public String name() {
                return "noop";
            }

            @Override
            public void validate(Map<String, Object> payload) {
            }

            @Override
            public ExecutionResult execute(ExecutionContext context) {
                return body.apply(context);
            }
        };
        return new Worker(settings, queue, new ExecutorRegistry(List.of(noop), Set.of()), new CountingWorkSignal(),
                new SplittableRandom(1), null);
    }

    void await(Duration max, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + max + "; runs by status: "
                        + pg.jdbi().withHandle(h -> h.createQuery("SELECT tenant || ' ' || status || ' ' || count(*) "
                        + "FROM runs GROUP BY tenant, status").mapTo(String.class).list())
                        + "; sessions: " + pg.jdbi().withHandle(h -> h.createQuery("SELECT state || ' ' "
                        + "|| coalesce(wait_event_type, '-') || ' ' || left(query, 120) FROM pg_stat_activity "
                        + "WHERE datname = current_database() AND pid <> pg_backend_pid()").mapTo(String.class).list()));
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition, not waiting for a fixed time
        }
    }
}
