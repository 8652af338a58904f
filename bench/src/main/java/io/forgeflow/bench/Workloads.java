package io.forgeflow.bench;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.trace.TraceContext;
import io.forgeflow.adapter.postgres.PostgresJdbi;
import io.forgeflow.adapter.postgres.PostgresJobRepository;
import io.forgeflow.adapter.postgres.PostgresRetention;
import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresWorkSignal;
import io.forgeflow.adapter.postgres.DedicatedConnections;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.WorkerListener;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.job.JobDraft;
import org.jdbi.v3.core.Jdbi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/** The workloads of BENCHMARKS.md, each on a fresh database. */
final class Workloads {
    private final BenchDatabase db;
    private final java.io.PrintStream out;
    /** The workers' and W2's submissions' spans (issue 31): none unless FORGEFLOW_OTLP_ENDPOINT is set. */
    private Tracing tracing = Tracing.NONE;
    /** The caller's trace context of W2's submissions; null for none. */
    private TraceContext incoming;

    Workloads(BenchDatabase db, java.io.PrintStream out) {
        this.db = db;
        this.out = out;
    }

    Workloads traced(Tracing spans, TraceContext caller) {
        this.tracing = spans == null ? Tracing.NONE : spans;
        this.incoming = caller;
        return this;
    }

    /** W0: single-row UPDATEs, each in its own transaction, from 16 clients: the database's commit ceiling. */
    BenchResult w0(Duration length) throws Exception {
        try (BenchDatabase.Fresh fresh = db.fresh("w0")) {
            try (Connection c = fresh.dataSource.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE bench_ref (id int PRIMARY KEY, v bigint NOT NULL)");
                st.execute("INSERT INTO bench_ref SELECT g, 0 FROM generate_series(1, 100000) g");
                st.execute("VACUUM ANALYZE bench_ref");
            }
            int clients = 16;
            AtomicLong done = new AtomicLong();
            // the clients keep their connections (their backends) until the CPU was read
            java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(clients);
            java.util.concurrent.CountDownLatch measured = new java.util.concurrent.CountDownLatch(1);
            long end = System.nanoTime() + length.toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                Thread th = new Thread(() -> {
                    try (Connection c = db.connect(fresh.name);
                         PreparedStatement ps = c.prepareStatement("UPDATE bench_ref SET v = v + 1 WHERE id = ?")) {
                        c.setAutoCommit(true);
                        while (System.nanoTime() < end) {
                            ps.setInt(1, 1 + ThreadLocalRandom.current().nextInt(100_000));
                            ps.executeUpdate();
                            done.incrementAndGet();
                        }
                        finished.countDown();
                        measured.await();
                    } catch (Exception e) {
                        finished.countDown();
                        throw new IllegalStateException(e);
                    }
                }, "w0-" + t);
                threads.add(th);
            }
            CpuMeter.Cpu cpu;
            double perSecond;
            try (Connection probe = db.connect(fresh.name)) {
                CpuMeter meter = new CpuMeter(probe, fresh.name, null);
                meter.start();
                long t0 = System.nanoTime();
                threads.forEach(Thread::start);
                finished.await();
                perSecond = done.get() / ((System.nanoTime() - t0) / 1e9);
                cpu = meter.stop();
                measured.countDown();
                for (Thread th : threads) {
                    th.join();
                }
            }
            return BenchResult.throughput("W0 pgbench-like UPDATE, 16 clients", perSecond, done.get(), 0, 0,
                    null, null, "the database's commit ceiling for one transaction per operation")
                    .withCpu(cpu, done.get());
        }
    }

    /**
     * ENQ-TX: 16 application clients, each committing transactions that insert an order row (in a schema of the
     * application's) and enqueue its job with {@code forgeflow.enqueue()} through the JDBC helper. Due now (each commit
     * notifies the workers) or, with {@code delayed}, an hour later (no notification): the difference is the cost of
     * the commit-time NOTIFY, which PostgreSQL serialises. No worker runs; the rows are checked afterwards.
     */
    BenchResult enqueueInTransaction(Duration length, boolean delayed, boolean watched) throws Exception {
        try (BenchDatabase.Fresh fresh = db.fresh(delayed ? "enq_tx_delayed" : watched ? "enq_tx_watched" : "enq_tx");
             // watched: as a worker node does (its claims aside), it watches for SQL enqueues and wakes its waiters
             PostgresWorkSignal node = watched ? new PostgresWorkSignal(DedicatedConnections.to(db.url(fresh.name),
                     db.user(), db.password(), "bench wake-ups")) : null) {
            Jdbi jdbi = PostgresJdbi.create(fresh.dataSource);
            new io.forgeflow.adapter.postgres.PostgresExecutorCatalog(jdbi).record(List.of("noop"), "bench");
            if (node != null) {
                node.watchSqlEnqueues(jdbi, true, () -> { });
            }
            try (Connection c = db.connect(fresh.name); Statement st = c.createStatement()) {
                st.execute("CREATE SCHEMA shop");
                st.execute("CREATE TABLE shop.orders (id bigserial PRIMARY KEY, receipt_job uuid NOT NULL)");
            }
            int clients = 16;
            AtomicLong done = new AtomicLong();
            java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(clients);
            java.util.concurrent.CountDownLatch measured = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicReference<Exception> failure = new java.util.concurrent.atomic.AtomicReference<>();
            long end = System.nanoTime() + length.toNanos();
            io.forgeflow.client.jdbc.JobRequest.Builder request = io.forgeflow.client.jdbc.JobRequest.builder("receipt", "noop");
            if (delayed) {
                request.runAt(java.time.Instant.now().plus(Duration.ofHours(1)));
            }
            io.forgeflow.client.jdbc.JobRequest job = request.build();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                Thread th = new Thread(() -> {
                    Properties p = new Properties();
                    try (Connection c = java.sql.DriverManager.getConnection(db.url(fresh.name), credentials(p));
                         PreparedStatement order = c.prepareStatement("INSERT INTO shop.orders (receipt_job) "
                                 + "VALUES (CAST(? AS uuid))")) {
                        c.setAutoCommit(false);
                        while (System.nanoTime() < end) {
                            io.forgeflow.client.jdbc.Enqueued e = io.forgeflow.client.jdbc.ForgeFlowJdbc.enqueue(c, job);
                            order.setString(1, e.jobId());
                            order.executeUpdate();
                            c.commit();
                            done.incrementAndGet();
                        }
                        finished.countDown();
                        measured.await(); // the backend stays until its CPU was read
                    } catch (Exception e) {
                        failure.compareAndSet(null, e);
                        finished.countDown();
                    }
                }, "enq-tx-" + t);
                threads.add(th);
            }
            CpuMeter.Cpu cpu;
            double perSecond;
            long orders;
            long runs;
            try (Connection probe = db.connect(fresh.name)) {
                CpuMeter meter = new CpuMeter(probe, fresh.name, null);
                meter.start();
                long t0 = System.nanoTime();
                threads.forEach(Thread::start);
                finished.await();
                perSecond = done.get() / ((System.nanoTime() - t0) / 1e9);
                cpu = meter.stop();
                measured.countDown();
                for (Thread th : threads) {
                    th.join();
                }
                if (failure.get() != null) {
                    throw failure.get();
                }
                try (Statement st = probe.createStatement();
                     ResultSet r = st.executeQuery("SELECT (SELECT count(*) FROM shop.orders), "
                             + "(SELECT count(*) FROM runs r JOIN shop.orders o ON o.receipt_job = r.job_id)")) {
                    r.next();
                    orders = r.getLong(1);
                    runs = r.getLong(2);
                }
            }
            return BenchResult.throughput("ENQ-TX order row + enqueue, 16 clients" + (delayed ? ", delayed"
                            : watched ? ", a worker node watching" : ""),
                    perSecond, runs, orders - runs, 0, null, null, "enqueues/s committed with their order row; "
                            + (delayed ? "run_at in an hour: no wake-up, the pending event's NOTIFY at each commit"
                            : watched ? "due now: no NOTIFY while the node watches (its claims are not run here)"
                            : "due now: no node listens, so a NOTIFY at each commit"))
                    .withCpu(cpu, done.get());
        }
    }

    private Properties credentials(Properties p) {
        p.setProperty("user", db.user());
        p.setProperty("password", db.password());
        return p; // the application's own session: default search_path, as an application would have
    }

    /** How W1 runs are limited: not at all, by a queue max_running, or by a concurrency key; never reached. */
    enum Limits {
        NONE(""), QUEUE(" (queue max_running 1000, not reached)"), KEY(" (concurrency key max 1000, not reached)");

        final String note;

        Limits(String note) {
            this.note = note;
        }
    }

    /** W1 / W1-large: drain N due no-op runs with one 16-slot worker. */
    BenchResult w1(String label, int n, Double reference) throws Exception {
        return w1(label, n, reference, Limits.NONE);
    }

    /**
     * W1 with limits that are configured but never reached: the cost of the guarded claim path (locks, counts) against
     * the open one.
     */
    BenchResult w1(String label, int n, Double reference, Limits limits) throws Exception {
        try (BenchDatabase.Fresh fresh = db.fresh(label.replace('-', '_'))) {
            seed(fresh, n, limits);
            Jdbi jdbi = PostgresJdbi.create(fresh.dataSource);
            CountingNoop noop = new CountingNoop(n);
            PostgresWorkSignal signal = new PostgresWorkSignal(DedicatedConnections.to(db.url(fresh.name), db.user(),
                    db.password(), "bench wake-ups"));
            Worker worker = worker("bench-w1", jdbi, noop, signal, Duration.ofMillis(100));
            AutoCloseable statistics = statisticsKeeper(jdbi);
            long tEnd;
            CpuMeter.Cpu cpu;
            try (Connection c = db.connect(fresh.name);
                 // whether any run is unfinished, through the partial indexes of pending and running runs: a count
                 // over the whole (by then bloated) table every 10 ms cost the measured database ~40 % of a core
                 PreparedStatement unfinished = c.prepareStatement("SELECT CASE WHEN EXISTS (SELECT 1 FROM runs "
                         + "WHERE status = 'pending') OR EXISTS (SELECT 1 FROM runs WHERE status = 'running') "
                         + "THEN 1 ELSE 0 END")) {
                CpuMeter meter = new CpuMeter(c, fresh.name, null);
                meter.start();
                long t0 = System.nanoTime();
                worker.start();
                long lastPoll = t0;
                while (true) {
                    // the database count is the truth: poll it every 10 ms once every run has executed, and only
                    // every 2 s before (counting a million-row backlog every 10 ms would load the measured database)
                    long now = System.nanoTime();
                    boolean allExecuted = noop.total.get() >= n;
                    if (allExecuted || now - lastPoll > 2_000_000_000L) {
                        lastPoll = now;
                        if (poll(unfinished) == 0) {
                            tEnd = System.nanoTime() - t0;
                            cpu = meter.stop();
                            break;
                        }
                    }
                    LockSupport.parkNanos(10_000_000L);
                    if (now - t0 > Duration.ofMinutes(10).toNanos()) {
                        throw new IllegalStateException(label + " did not drain within 10 minutes");
                    }
                }
            } finally {
                worker.stop();
                signal.close();
                statistics.close();
            }
            double perSecond = n / (tEnd / 1e9);
            return BenchResult.throughput(label + " drain " + n + " no-op runs, 16 slots" + limits.note, perSecond,
                    noop.total.get() - noop.duplicated(), noop.lost(), noop.duplicated(),
                    reference == null ? null : "W0", reference == null ? null : perSecond / reference, null)
                    .withCpu(cpu, n);
        }
    }

    /**
     * W2: an open-loop producer at rate R through the submission path; pickup latency from the intended time. The
     * producers stop submitting at twice the schedule's length, so that a rate beyond the machine ends in bounded time
     * (the row then says how many runs were submitted; its latencies and lost count cover those).
     */
    BenchResult w2(int rate, Duration warmup, Duration measured) throws Exception {
        return w2(rate, warmup, measured, warmup.plus(measured).multipliedBy(2), false, false);
    }

    /**
     * W2-SQL (issue 40): W2 whose producers enqueue through client-jdbc ({@code forgeflow.enqueue}, one autocommitted
     * call per run on each producer's own connection), as db-scheduler's producers schedule in-process; with its
     * database work per run.
     */
    BenchResult w2Sql(int rate, Duration warmup, Duration measured) throws Exception {
        return w2(rate, warmup, measured, warmup.plus(measured).multipliedBy(2), true, true);
    }

    /** W2 that also prints its database work per run (issue 40); about 11 s longer (the backends flush statistics). */
    BenchResult w2Counted(int rate, Duration warmup, Duration measured) throws Exception {
        return w2(rate, warmup, measured, warmup.plus(measured).multipliedBy(2), true, false);
    }

    /** W2 whose producers submit nothing after {@code producing} from the first intended enqueue. */
    BenchResult w2(int rate, Duration warmup, Duration measured, Duration producing) throws Exception {
        return w2(rate, warmup, measured, producing, false, false);
    }

    private BenchResult w2(int rate, Duration warmup, Duration measured, Duration producing, boolean count,
                           boolean viaSql) throws Exception {
        try (BenchDatabase.Fresh fresh = db.fresh((viaSql ? "w2sql_" : "w2_") + rate)) {
            Jdbi jdbi = PostgresJdbi.create(fresh.dataSource);
            // W2-SQL's runs carry their index in the payload, which enqueue() refuses for the built-in noop
            String executor = viaSql ? "w2" : "noop";
            if (viaSql) {
                new io.forgeflow.adapter.postgres.PostgresExecutorCatalog(jdbi).record(List.of(executor), "bench");
            }
            int total = (int) (rate * (warmup.toMillis() + measured.toMillis()) / 1000);
            CountingNoop noop = new CountingNoop(total, executor);
            PostgresWorkSignal signal = new PostgresWorkSignal(DedicatedConnections.to(db.url(fresh.name), db.user(),
                    db.password(), "bench wake-ups"));
            signal.watchSqlEnqueues(jdbi, true, () -> { }); // as a worker node's (W2-SQL's enqueues start it)
            Worker worker = worker("bench-w2", jdbi, noop, signal, Duration.ofMillis(100));
            AutoCloseable statistics = statisticsKeeper(jdbi);
            ExecutorRegistry registry = new ExecutorRegistry(List.of(noop), Set.of());
            SubmitJob submit = new SubmitJob(new PostgresJobRepository(jdbi, null), registry, new CronUtilsSchedules(),
                    signal, Clock.systemUTC(), tracing);
            worker.start();
            LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
            Connection probe = db.connect(fresh.name);
            CpuMeter meter = new CpuMeter(probe, fresh.name, null);
            DbCounts counts = count ? new DbCounts(probe, fresh.name) : null;
            if (counts != null) {
                counts.start();
            }
            meter.start();
            long[] enqueueLatency = new long[total];
            boolean[] submitted = new boolean[total];
            long t0 = System.nanoTime() + Duration.ofMillis(50).toNanos();
            long stopAt = t0 + producing.toNanos();
            long intervalNanos = 1_000_000_000L / rate;
            AtomicLong next = new AtomicLong();
            AtomicLong submittedCount = new AtomicLong();
            List<Thread> producers = new ArrayList<>();
            java.util.concurrent.atomic.AtomicReference<Exception> producerFailure =
                    new java.util.concurrent.atomic.AtomicReference<>();
            for (int p = 0; p < 4; p++) {
                Connection own = viaSql ? db.connect(fresh.name) : null; // autocommit: one transaction per enqueue
                Thread th = new Thread(() -> {
                    try {
                        for (long i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                            long intended = t0 + i * intervalNanos;
                            long wait;
                            while ((wait = intended - System.nanoTime()) > 0) {
                                LockSupport.parkNanos(wait);
                            }
                            if (System.nanoTime() - stopAt > 0) {
                                return; // past the time limit: this producer submits nothing more
                            }
                            if (own != null) {
                                io.forgeflow.client.jdbc.ForgeFlowJdbc.enqueue(own, io.forgeflow.client.jdbc.JobRequest
                                        .builder("w2", executor).payload(Map.of("i", (int) i)).build());
                            } else {
                                submit.submit(JobDraft.oneOff("w2", "noop", Map.of("i", (int) i)), incoming);
                            }
                            enqueueLatency[(int) i] = System.nanoTime() - intended;
                            submitted[(int) i] = true;
                            submittedCount.incrementAndGet();
                        }
                    } catch (Exception e) {
                        producerFailure.compareAndSet(null, e);
                    } finally {
                        if (own != null) {
                            try {
                                own.close();
                            } catch (java.sql.SQLException ignored) {
                                // the run is over
                            }
                        }
                    }
                }, "w2-producer-" + p);
                producers.add(th);
                th.start();
            }
            for (Thread th : producers) {
                th.join();
            }
            if (producerFailure.get() != null) {
                throw new IllegalStateException("a W2 producer failed", producerFailure.get());
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (noop.total.get() < submittedCount.get() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000L);
            }
            CpuMeter.Cpu cpu = meter.stop();
            worker.stop();
            signal.close();
            statistics.close();
            if (counts != null) {
                // an idle backend flushes its statistics within 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL)
                LockSupport.parkNanos(Duration.ofSeconds(11).toNanos());
                counts.stop(submittedCount.get(), out);
            }
            probe.close();
            int first = (int) (rate * warmup.toMillis() / 1000);
            long[] pickup = new long[total - first];
            long[] enqueue = new long[total - first];
            int k = 0;
            int e = 0;
            long minStart = Long.MAX_VALUE;
            long maxStart = Long.MIN_VALUE;
            for (int i = first; i < total; i++) {
                if (submitted[i]) {
                    enqueue[e++] = enqueueLatency[i];
                }
                if (noop.executions.get(i) > 0) {
                    long started = noop.startedNanos.get(i);
                    pickup[k++] = started - (t0 + i * intervalNanos);
                    minStart = Math.min(minStart, started);
                    maxStart = Math.max(maxStart, started);
                }
            }
            Stats latency = Stats.of(pickup, k);
            Stats enq = Stats.of(enqueue, e);
            double achieved = k > 1 ? (k - 1) / ((maxStart - minStart) / 1e9) : 0;
            long sent = submittedCount.get();
            String stopped = sent == total ? "" : String.format(Locale.ROOT,
                    "; producers stopped at %d s, %,d of %,d runs submitted", producing.toSeconds(), sent, total);
            return new BenchResult((viaSql ? "W2-SQL" : "W2") + " steady rate " + rate + "/s (pickup latency" + stopped
                    + ")", achieved,
                    (double) rate, latency.p50(), latency.p95(), latency.p99(), latency.max(), enq.p50(), enq.p99(),
                    noop.total.get() - noop.duplicated(), noop.lostAmong(i -> submitted[i]), noop.duplicated(), null, null,
                    (viaSql ? "4 producer threads each calling forgeflow.enqueue through client-jdbc on its own "
                            + "connection, one transaction per run"
                            : "4 producer threads calling SubmitJob (job + run in one statement each; concurrent "
                            + "submissions share commits)") + stopped).withCpu(cpu, Math.max(1, sent));
        }
    }

    /**
     * What a node's leader does every {@code STATISTICS_INTERVAL} (15 s): where autovacuum is off, as on this project's
     * benchmark machine, analyze the tables that changed enough ({@link PostgresRetention#refreshStatistics()}).
     * Without it, a plan made while W2's tables were nearly empty is kept as they grow.
     */
    private static AutoCloseable statisticsKeeper(Jdbi jdbi) {
        PostgresRetention retention = new PostgresRetention(jdbi, null);
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "bench-statistics");
                    t.setDaemon(true);
                    return t;
                });
        timer.scheduleWithFixedDelay(() -> {
            try {
                retention.refreshStatistics();
            } catch (RuntimeException e) {
                System.err.println("bench: statistics refresh failed: " + e);
            }
        }, 15, 15, java.util.concurrent.TimeUnit.SECONDS);
        return timer::shutdownNow;
    }

    private Worker worker(String id, Jdbi jdbi, CountingNoop noop, PostgresWorkSignal signal, Duration poll) {
        WorkerSettings settings = new WorkerSettings(id, 16, poll, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofSeconds(10), 64 * 1024, new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15)));
        return new Worker(settings, new PostgresRunQueue(jdbi, null), new ExecutorRegistry(List.of(noop), Set.of()),
                signal, new SplittableRandom(), WorkerListener.NONE, io.forgeflow.domain.port.RunEvents.NONE, tracing);
    }

    private void seed(BenchDatabase.Fresh fresh, int n) throws Exception {
        seed(fresh, n, Limits.NONE);
    }

    private void seed(BenchDatabase.Fresh fresh, int n, Limits limits) throws Exception {
        long t = System.nanoTime();
        boolean keyed = limits == Limits.KEY;
        try (Connection c = fresh.dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO jobs (id, name, executor, status, concurrency_key, max_concurrent) VALUES "
                    + "('00000000-0000-7000-8000-000000000001', 'bench', 'noop', 'active', "
                    + (keyed ? "'bench', 1000" : "NULL, NULL") + ")");
            st.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, concurrency_key, max_concurrent) SELECT gen_random_uuid(), "
                    + "'00000000-0000-7000-8000-000000000001', "
                    + "'pending', 5, now() - interval '1 second', 0, 3, 'noop', jsonb_build_object('i', g - 1), 60, "
                    + (keyed ? "'bench', 1000 " : "NULL, NULL ")
                    + "FROM generate_series(1, " + n + ") g");
            if (limits == Limits.QUEUE) {
                st.execute("INSERT INTO queues (name, max_running) VALUES ('default', 1000)");
            }
            st.execute("VACUUM ANALYZE runs");
        }
        out.printf("  seeded %,d runs in %.1f s%n", n, (System.nanoTime() - t) / 1e9);
    }

    private static long poll(PreparedStatement unfinished) throws Exception {
        try (ResultSet rs = unfinished.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
