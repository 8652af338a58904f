package io.forgeflow.server;

import io.forgeflow.adapter.postgres.PostgresJobRepository;
import io.forgeflow.adapter.postgres.PostgresQueueRepository;
import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresRunRepository;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestJobs;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.schedule.ScheduleTicker;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.application.worker.QueueLane;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cluster-wide limits on the real claim engine, with several real workers (the application's Worker, each with its
 * own slots and its own connection use): concurrency keys, queue max_running, rate limits, crashed holders, overlap
 * of recurring jobs, and pausing a queue.
 */
class QueueLimitsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), null);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null);
    final PostgresQueueRepository queues = new PostgresQueueRepository(pg.jdbi(), null);
    final List<Worker> started = new ArrayList<>();
    final List<AutoCloseable> closers = new ArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (AutoCloseable c : closers) {
            c.close();
        }
        started.forEach(Worker::stop);
    }

    @Test
    void aLimitOfTwoOnAKeyNeverHasMoreThanTwoRunningAcrossSixWorkersAndEveryRunFinishes() throws Exception {
        // two live jobs share the key; the stricter one (2) wins over the other's 5, also once the strict job's own
        // runs are done (it is a recurring job, still active)
        Job strict = pg.insert(TestJobs.aJob().withExecutor("work").limitedBy("billing", 2)
                .recurring("0 0 1 1 *", Instant.now().plus(Duration.ofDays(30))));
        Job lax = pg.insert(TestJobs.aJob().withExecutor("work").limitedBy("billing", 5));
        Job free = pg.insert(TestJobs.aJob().withExecutor("work"));
        seed(strict, 30);
        seed(lax, 30);
        seed(free, 30);
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> run.jobId().equals(free.id()) ? null : "billing");
        for (int i = 0; i < 6; i++) {
            start(worker("w" + i, 4, Duration.ofSeconds(30), probe.executor("work", 30)));
        }
        Sampler sampler = sample("SELECT count(*) FROM runs WHERE status = 'running' AND concurrency_key = 'billing'");

        await(Duration.ofSeconds(90), () -> count(RunStatus.SUCCEEDED) == 90);

        assertThat(sampler.max()).as("runs of the key running at once, sampled in the database").isEqualTo(2);
        assertThat(probe.max("billing")).as("runs of the key executing at once").isEqualTo(2);
        assertThat(probe.max(null)).as("runs without a key are not held back by it").isGreaterThan(2);
        assertThat(sampler.samples()).isGreaterThan(50);
    }

    @Test
    void aQueueMaxRunningHoldsAcrossWorkersAndOtherQueuesAreNotHeldBack() throws Exception {
        queues.configure("default", "reports", true, false, new QueueLimits(3, null));
        Job reports = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("reports"));
        Job other = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("webhooks"));
        seed(reports, 40);
        seed(other, 40);
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> run.jobId().equals(reports.id()) ? "reports" : "webhooks");
        for (int i = 0; i < 5; i++) {
            start(worker("w" + i, 4, Duration.ofSeconds(30), probe.executor("work", 30)));
        }
        Sampler sampler = sample("SELECT count(*) FROM runs WHERE status = 'running' AND queue = 'reports'");

        await(Duration.ofSeconds(90), () -> count(RunStatus.SUCCEEDED) == 80);

        assertThat(sampler.max()).isEqualTo(3);
        assertThat(probe.max("reports")).isEqualTo(3);
        assertThat(probe.max("webhooks")).isGreaterThan(3);
    }

    @Test
    void aCrashedHolderFreesItsSlotWhenItsLeaseExpires() throws Exception {
        Job job = pg.insert(TestJobs.aJob().withExecutor("block").limitedBy("exclusive", 1));
        seed(job, 2);
        CountDownLatch release = new CountDownLatch(1);
        closers.add(release::countDown);
        RunExecutor blocking = named("block", ctx -> {
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExecutionResult.succeeded("released");
        });
        // the holder claims and then "crashes": its heartbeat threads never run, so its 1 s lease runs out
        Worker crashed = worker("crashed", 1, Duration.ofSeconds(1), blocking);
        closers.add(() -> {
            release.countDown();
            crashed.stop();
        });
        assertThat(crashed.claimOnce()).isEqualTo(1);
        Worker healthy = worker("healthy", 1, Duration.ofSeconds(30), blocking);
        closers.add(healthy::stop);
        Instant leaseEnd = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT lease_expires_at FROM runs WHERE worker_id = 'crashed'").mapTo(Instant.class).one());

        assertThat(healthy.claimOnce()).as("the key's only slot is held").isZero();
        // no lease rescuer runs here: the expired lease alone frees the slot
        await(Duration.ofSeconds(15), () -> healthy.claimOnce() == 1);
        Instant claimedAt = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT started_at FROM runs WHERE worker_id = 'healthy'").mapTo(Instant.class).one());
        assertThat(claimedAt).isAfterOrEqualTo(leaseEnd);
        assertThat(runs.find(pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT CAST(id AS text) FROM runs WHERE worker_id = 'crashed'").mapTo(String.class).one()))
                .orElseThrow().status()).as("the crashed holder's run waits for the leader's recovery")
                .isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aRateOfTenPerSecondStartsAboutFiftyRunsInFiveSecondsWithoutUsingAttempts() throws Exception {
        queues.configure("default", "partner", false, true, new QueueLimits(null, new RateLimit(10, 1)));
        Job job = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("partner"));
        seed(job, 300);
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> "partner");
        for (int i = 0; i < 3; i++) {
            start(worker("w" + i, 8, Duration.ofSeconds(30), probe.executor("work", 0)));
        }
        await(Duration.ofSeconds(20), () -> count(RunStatus.SUCCEEDED) > 0);
        Instant first = pg.jdbi().withHandle(h -> h.createQuery("SELECT min(started_at) FROM run_attempts")
                .mapTo(Instant.class).one());
        await(Duration.ofSeconds(30), () -> Instant.now().isAfter(first.plusSeconds(6)));

        long inFiveSeconds = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM run_attempts WHERE started_at < CAST(:end AS timestamptz)")
                .bind("end", first.plusSeconds(5)).mapTo(Long.class).one());
        // at most the rate allows; the floor only catches a limiter far too strict (one start a second would be 5):
        // on a loaded machine three workers may not keep up with 10 a second
        assertThat(inFiveSeconds).as("starts in the first five seconds at 10 a second").isBetween(20L, 60L);
        // the sliding window: no one-second window holds more than ten starts
        long worstSecond = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT max((SELECT count(*) FROM run_attempts b WHERE b.started_at >= a.started_at "
                        + "AND b.started_at < a.started_at + interval '1 second')) FROM run_attempts a")
                .mapTo(Long.class).one());
        assertThat(worstSecond).isLessThanOrEqualTo(10);
        long waitingWithAttempts = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM runs WHERE status = 'pending' AND attempt > 0").mapTo(Long.class).one());
        assertThat(waitingWithAttempts).as("runs held back by the rate use no attempt").isZero();
    }

    @Test
    void aThrottleOfFivePerTwoSecondsHoldsPerKeyAcrossTwoWorkersWhileAnUnthrottledKeyRunsFreely() throws Exception {
        PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), null);
        for (int i = 0; i < 15; i++) {
            for (String key : List.of("a", "b", "c")) {
                submit(jobs, key, new io.forgeflow.domain.job.Throttle(key, 5, 2));
            }
        }
        for (int i = 0; i < 30; i++) {
            submit(jobs, "free", null);
        }
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> "any");
        for (int i = 0; i < 2; i++) {
            start(worker("w" + i, 8, Duration.ofSeconds(30), probe.executor("work", 0)));
        }

        await(Duration.ofSeconds(60), () -> count(RunStatus.SUCCEEDED) == 75);

        // no two-second window holds more than five starts of one key, on both workers together
        Map<String, Object> worst = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT coalesce(r.throttle_key, 'free') AS k, max((SELECT count(*) FROM run_attempts b "
                        + "JOIN runs rb ON rb.id = b.run_id WHERE rb.throttle_key IS NOT DISTINCT FROM r.throttle_key "
                        + "AND b.started_at >= a.started_at AND b.started_at < a.started_at + interval '2 seconds')) AS n "
                        + "FROM run_attempts a JOIN runs r ON r.id = a.run_id GROUP BY 1")
                .reduceRows(new java.util.TreeMap<String, Object>(), (m, row) -> {
                    m.put(row.getColumn("k", String.class), row.getColumn("n", Long.class));
                    return m;
                }));
        assertThat(worst).containsEntry("a", 5L).containsEntry("b", 5L).containsEntry("c", 5L);
        assertThat((Long) worst.get("free")).as("the unthrottled key is not held back").isGreaterThan(5L);
        long retried = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM runs WHERE attempt > 1")
                .mapTo(Long.class).one());
        assertThat(retried).as("runs held back by a throttle use no attempt").isZero();
    }

    static void submit(PostgresJobRepository jobs, String key, io.forgeflow.domain.job.Throttle throttle) {
        io.forgeflow.domain.job.JobSpec spec = io.forgeflow.domain.job.JobDraft.oneOff("t-" + key, "work",
                Map.of("key", key)).withFlow(null, throttle).validate();
        Instant now = Instant.now();
        String jobId = Ids.newId(now);
        jobs.create(Job.submitted(jobId, spec, now, now, null), Run.pending(Ids.newId(now), jobId, spec.maxAttempts(),
                spec.priority(), now, "work", spec.payload(), spec.timeoutSeconds(), now));
    }

    @Test
    void overlapSkipNeverRunsTwoAtOnceAndCountsTheSkippedTicks() throws Exception {
        Instant firstTick = Instant.now().plusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Job job = pg.insert(TestJobs.aJob().withExecutor("slow").recurring("* * * * * *", firstTick)
                .overlapping(Overlap.SKIP));
        AtomicInteger missed = new AtomicInteger();
        ScheduleTicker ticker = new ScheduleTicker(new PostgresJobRepository(pg.jdbi(), null), new CronUtilsSchedules(),
                FakeLeaderElection.leading(), new CountingWorkSignal(), Duration.ofSeconds(60), missed::addAndGet);
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> "job");
        for (int i = 0; i < 3; i++) {
            start(worker("w" + i, 2, Duration.ofSeconds(30), probe.executor("slow", 2_500)));
        }
        Sampler sampler = sample("SELECT count(*) FROM runs WHERE status IN ('pending', 'running')");
        long until = System.nanoTime() + Duration.ofSeconds(9).toNanos();
        while (System.nanoTime() < until) {
            ticker.runOnce();
            TimeUnit.MILLISECONDS.sleep(100); // the scheduler's tick interval, shortened
        }

        assertThat(sampler.max()).as("live runs of the job at any time").isEqualTo(1);
        assertThat(probe.max("job")).isEqualTo(1);
        long fired = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM runs").mapTo(Long.class).one());
        assertThat(fired).isBetween(2L, 5L);
        assertThat(missed.get()).as("ticks dropped while a run was live").isGreaterThanOrEqualTo(3);
        assertThat(fired + missed.get()).as("every tick either fired or was counted as missed").isBetween(7L, 11L);
        assertThat(job.id()).isNotNull();
    }

    @Test
    void pausingAQueueStopsClaimsOnEveryNodeWithinOnePollAndResumingLetsThemFinish() throws Exception {
        Job job = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("bulk"));
        seed(job, 1500);
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> "bulk");
        Duration poll = Duration.ofMillis(200);
        for (int i = 0; i < 3; i++) {
            start(worker("node-" + i, 2, Duration.ofSeconds(30), probe.executor("work", 10), poll));
        }
        await(Duration.ofSeconds(30), () -> count(RunStatus.SUCCEEDED) > 50);

        queues.setPaused("default", "bulk", true);
        // the pause has committed when setPaused returns: from now on no claim that starts may take the queue
        Instant pausedAt = pg.jdbi().withHandle(h -> h.createQuery("SELECT clock_timestamp()").mapTo(Instant.class).one());
        TimeUnit.MILLISECONDS.sleep(3 * poll.toMillis()); // several polls of every worker: none may claim
        long claimedAfter = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM run_attempts WHERE started_at > CAST(:t AS timestamptz)")
                .bind("t", pausedAt.plus(poll)).mapTo(Long.class).one());
        long pending = count(RunStatus.PENDING);
        assertThat(claimedAfter).as("runs started more than one poll after the pause").isZero();
        assertThat(pending).isPositive();
        assertThat(queues.get("default", "bulk").paused()).isTrue();

        queues.setPaused("default", "bulk", false);
        await(Duration.ofSeconds(60), () -> count(RunStatus.SUCCEEDED) == 1500);
    }

    @Test
    void aWorkerLaneTakesOnlyItsQueueIntoItsOwnSlots() throws Exception {
        Job reports = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("reports"));
        Job webhooks = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("webhooks"));
        Job other = pg.insert(TestJobs.aJob().withExecutor("work").inQueue("other"));
        seed(reports, 20);
        seed(webhooks, 20);
        seed(other, 5);
        ConcurrencyProbe probe = new ConcurrencyProbe(run -> run.jobId().equals(reports.id()) ? "reports"
                : run.jobId().equals(webhooks.id()) ? "webhooks" : "other");
        Worker w = worker("laned", 1, Duration.ofSeconds(30), probe.executor("work", 40), Duration.ofMillis(50),
                QueueLane.parse("reports=1,webhooks=3", 16));
        start(w);
        await(Duration.ofSeconds(60), () -> count(RunStatus.SUCCEEDED) == 40);

        assertThat(probe.max("reports")).isEqualTo(1);
        assertThat(probe.max("webhooks")).isEqualTo(3);
        assertThat(probe.max("other")).as("a queue the worker does not take").isZero();
        assertThat(count(RunStatus.PENDING)).isEqualTo(5);
    }

    // ---------------------------------------------------------------------------------------------------------

    long count(RunStatus status) {
        return runs.countByStatus().get(status);
    }

    void seed(Job job, int n) {
        Instant due = Instant.now().minusSeconds(1);
        List<Run> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Run.pending(Ids.newId(due.plusMillis(i)), job.id(), 3, 5, due, job.spec().executor(),
                    Map.of("i", i), 60, due));
        }
        pg.insertAll(batch);
    }

    Worker worker(String id, int slots, Duration lease, RunExecutor executor) {
        return worker(id, slots, lease, executor, Duration.ofMillis(50));
    }

    Worker worker(String id, int slots, Duration lease, RunExecutor executor, Duration poll) {
        return worker(id, slots, lease, executor, poll, QueueLane.all(slots));
    }

    Worker worker(String id, int slots, Duration lease, RunExecutor executor, Duration poll, List<QueueLane> lanes) {
        WorkerSettings settings = new WorkerSettings(id, slots, poll, lease, lease.dividedBy(3), Duration.ofSeconds(2),
                64 * 1024, new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(100))).withLanes(lanes);
        return new Worker(settings, queue, new ExecutorRegistry(List.of(executor), Set.of()), new CountingWorkSignal(),
                new SplittableRandom(1), null);
    }

    void start(Worker w) {
        started.add(w);
        w.start();
    }

    /** Samples a count in the database every few milliseconds, on its own thread, until the test ends. */
    Sampler sample(String sql) {
        Sampler sampler = new Sampler(sql);
        closers.add(sampler);
        sampler.start();
        return sampler;
    }

    final class Sampler extends Thread implements AutoCloseable {
        private final String sql;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicInteger max = new AtomicInteger();
        private final AtomicInteger samples = new AtomicInteger();

        Sampler(String sql) {
            super("sampler");
            setDaemon(true);
            this.sql = sql;
        }

        @Override
        public void run() {
            pg.jdbi().useHandle(h -> {
                while (!stop.get()) {
                    int n = h.createQuery(sql).mapTo(Integer.class).one();
                    max.accumulateAndGet(n, Math::max);
                    samples.incrementAndGet();
                    try {
                        TimeUnit.MILLISECONDS.sleep(3); // sampling period, not a wait for a result
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        int max() {
            return max.get();
        }

        int samples() {
            return samples.get();
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            join(5_000);
        }
    }

    /** Counts executions in progress per group, and the most seen at once. */
    static final class ConcurrencyProbe {
        private final Function<Run, String> groupOf;
        private final Map<String, AtomicInteger> now = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> most = new java.util.concurrent.ConcurrentHashMap<>();

        ConcurrencyProbe(Function<Run, String> groupOf) {
            this.groupOf = groupOf;
        }

        RunExecutor executor(String name, long millis) {
            return named(name, ctx -> {
                String group = String.valueOf(groupOf.apply(jobRun(ctx)));
                int n = now.computeIfAbsent(group, g -> new AtomicInteger()).incrementAndGet();
                most.computeIfAbsent(group, g -> new AtomicInteger()).accumulateAndGet(n, Math::max);
                try {
                    if (millis > 0) {
                        TimeUnit.MILLISECONDS.sleep(millis);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    now.get(group).decrementAndGet();
                }
                return ExecutionResult.succeeded("ok");
            });
        }

        int max(String group) {
            AtomicInteger m = most.get(String.valueOf(group));
            return m == null ? 0 : m.get();
        }

        private static Run jobRun(ExecutionContext ctx) {
            return Run.pending(ctx.runId(), ctx.jobId(), 1, 5, Instant.EPOCH, "x", Map.of(), 1, Instant.EPOCH);
        }
    }

    static RunExecutor named(String name, Function<ExecutionContext, ExecutionResult> body) {
        return new RunExecutor() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void validate(Map<String, Object> payload) {
            }

            @Override
            public ExecutionResult execute(ExecutionContext context) {
                return body.apply(context);
            }
        };
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
}
