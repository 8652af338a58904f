package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.queue.QueueSelection;

import io.forgeflow.domain.port.ClaimHint;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.RunLifecycleGuard;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.apache.tomcat.jdbc.pool.DataSource;
import org.apache.tomcat.jdbc.pool.PoolProperties;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker's hot statements keep their primary-key and partial-index lookups when their plan was made while the
 * tables were nearly empty. A pooled connection keeps a statement's generic plan (the JDBC driver prepares it on the
 * server after five executions) until an ANALYZE of the tables invalidates it; on a server where autovacuum is off,
 * nothing ever does. Seen in the benchmark on this machine (autovacuum off): the acknowledgement, planned when the
 * jobs table was nearly empty, scanned all of jobs once per acknowledged run, 35 s per batch of 1,000 at 165,000
 * jobs, and the worker fell minutes behind.
 *
 * <p>The connection here makes generic plans from the first execution ({@code plan_cache_mode}), on tables holding
 * one run, then the tables grow and are never analyzed. The rows the statements read, counted in PostgreSQL's own
 * statistics, must stay proportional to the batch, not to the tables.
 */
class PlanStabilityIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migratedAlone();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    DataSource onePlanCache;
    Jdbi jdbi;
    PostgresRunQueue queue;

    @BeforeEach
    void oneConnectionWithGenericPlans() {
        PoolProperties p = new PoolProperties();
        p.setUrl(pg.jdbcUrl());
        p.setUsername(pg.user());
        p.setPassword(pg.password());
        p.setDriverClassName("org.postgresql.Driver");
        p.setMaxActive(1);
        p.setMaxIdle(1);
        p.setMinIdle(1);
        p.setInitialSize(1);
        p.setInitSQL("SET plan_cache_mode = force_generic_plan");
        p.setConnectionProperties(PostgresSchema.CONNECTION_PROPERTY + "=" + PostgresSchema.DEFAULT);
        onePlanCache = new DataSource(p);
        jdbi = PostgresJdbi.create(onePlanCache);
        queue = new PostgresRunQueue(jdbi, clock);
    }

    @AfterEach
    void close() {
        onePlanCache.close(true);
    }

    @Test
    void claimHeartbeatAndAcknowledgeReadRowsInProportionToTheBatchOnceTheTablesGrew() {
        // plans made on tables with a single run
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        List<Run> first = queue.claim("w1", NOOP, 1, LEASE);
        queue.heartbeat("w1", LEASE);
        queue.acknowledge(succeeded(first));
        assertThat(first).hasSize(1);

        grow(5_000);
        Map<String, Long> before = rowsRead();

        List<Run> claimed = queue.claim("w1", NOOP, 200, LEASE);
        queue.heartbeat("w1", LEASE);
        Set<RunFence> applied = queue.acknowledge(succeeded(claimed));

        assertThat(claimed).hasSize(200);
        assertThat(applied).hasSize(200);
        assertReadInProportion(before, rowsRead(), 200);
    }

    @Test
    void smallAcknowledgementBatchesReadRowsInProportionToo() {
        // small batches (under 16) are written a run at a time by statements whose plans the session keeps, made here
        // on tables with a single run
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));

        grow(5_000);
        Map<String, Long> before = rowsRead();
        int acknowledged = 0;
        for (int round = 0; round < 10; round++) {
            acknowledged += queue.acknowledge(succeeded(queue.claim("w1", NOOP, 8, LEASE))).size();
        }

        assertThat(acknowledged).isEqualTo(80);
        assertReadInProportion(before, rowsRead(), 80);
    }

    /**
     * About one row of jobs per acknowledged run, a few of runs per claimed run, one or two of attempts: a scan would
     * read 5,000 rows per batch.
     */
    private static void assertReadInProportion(Map<String, Long> before, Map<String, Long> after, int runs) {
        assertThat(after.get("jobs") - before.get("jobs")).as("rows of jobs read").isLessThanOrEqualTo(2L * runs);
        assertThat(after.get("runs") - before.get("runs")).as("rows of runs read").isLessThanOrEqualTo(10L * runs);
        assertThat(after.get("run_attempts") - before.get("run_attempts")).as("rows of run_attempts read")
                .isLessThanOrEqualTo(2L * runs);
    }

    @Test
    void aClaimReadsNoRunScheduledForLater() {
        // plans made on tables with a single run
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));
        assertThat(queue.claim("w1", NOOP, 16, LEASE)).isEmpty();

        scheduleForLater(50_000, false);
        pg.insert(aRun().dueAt(now.minusSeconds(1)).withPriority(9));
        long one = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 16, LEASE)).hasSize(1));
        long nothing = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 16, LEASE)).isEmpty());

        // one scan in claim order read the index range of all 50,000 on every claim (549 pages for the first, with
        // the claim of migration 0004); a claim's own writes and its planning touch about 90
        assertThat(one).as("pages read by a claim of the one due run among 50,000 later ones").isLessThan(150);
        assertThat(nothing).as("pages read by a claim that finds nothing due").isLessThan(80);
    }

    @Test
    void aWorkerOfOneQueueReadsNoRunOfAnotherQueuesBacklog() {
        claimOfEmailsBesideADueBacklogOfReports(false);
    }

    @Test
    void aWorkerOfOneQueueReadsNoRunOfAnotherQueuesBacklogWhenThatQueueIsLimited() {
        claimOfEmailsBesideADueBacklogOfReports(true);
    }

    private void claimOfEmailsBesideADueBacklogOfReports(boolean reportsLimited) {
        if (reportsLimited) { // its due runs send the claim down the guarded path
            new PostgresQueueRepository(jdbi, clock).configure("default", "reports", true, false,
                    new io.forgeflow.domain.queue.QueueLimits(100_000, null));
        }
        QueueSelection emails = QueueSelection.only(Set.of("emails"));
        // plans made on tables with a single run, the include path's too
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));
        if (reportsLimited) {
            dueNowInQueue("reports", 1);
        }
        dueNowInQueue("emails", 1);
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, emails, 16, LEASE, null)));
        assertThat(queue.claim("w1", NOOP, emails, 16, LEASE, null)).isEmpty();

        // 20,000 due runs of "reports" at every priority, then one due run of "emails"
        dueNowInQueue("reports", 20_000);
        dueNowInQueue("emails", 1);
        long one = pagesRead(() -> assertThat(queue.claim("w2", NOOP, emails, 16, LEASE, null)).hasSize(1));
        long nothing = pagesRead(() -> assertThat(queue.claim("w2", NOOP, emails, 16, LEASE, null)).isEmpty());

        // the bounds of the claims beside runs scheduled for later (the guarded claim's when reports is limited): the
        // other queue's backlog is not the worker's to read (about 4,000 pages for the first before 0031)
        assertThat(one).as("pages read by a claim of the one due run of emails beside 20,000 of reports")
                .isLessThan(reportsLimited ? 250 : 150);
        assertThat(nothing).as("pages read by a claim of emails that finds nothing due")
                .isLessThan(reportsLimited ? 150 : 80);
    }

    /** n pending runs of the one job in {@code queueName}, priorities 1 to 9, all due. No ANALYZE follows. */
    private void dueNowInQueue(String queueName, int n) {
        dueNowInQueue(queueName, n, 0);
    }

    /** The same at one priority (0: 1 to 9). */
    private void dueNowInQueue(String queueName, int n, int priority) {
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, queue) SELECT gen_random_uuid(), r.job_id, 'pending', "
                    + "CASE WHEN ? = 0 THEN 1 + g % 9 ELSE ? END, "
                    + "CAST(? AS timestamptz) - interval '1 second' + g * interval '1 microsecond', 0, 1, 'noop', "
                    + "'{}', 60, ? FROM (SELECT job_id FROM runs LIMIT 1) r, generate_series(1, ?) AS g",
                    priority, priority, java.sql.Timestamp.from(now), queueName, n);
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
        }
    }

    @Test
    void aClaimAfterOneThatTookAllItAskedForDoesNotReadTheRunsClaimedBefore() {
        // plans made on tables with a single run
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));

        // a drain half done: 50,000 of 60,000 due runs claimed and finished, their entries still in the pending index
        dueNow(60_000);
        try (Handle h = pg.jdbi().open()) {
            RunLifecycleGuard.shortcut(h, "UPDATE runs SET status = 'succeeded', finished_at = now() WHERE id IN (SELECT id FROM runs "
                    + "WHERE status = 'pending' ORDER BY priority, scheduled_for, id LIMIT 50000)");
        }
        java.util.concurrent.atomic.AtomicReference<List<Run>> firstClaim = new java.util.concurrent.atomic.AtomicReference<>();
        long first = pagesRead(() -> {
            firstClaim.set(queue.claim("w1", NOOP, QueueSelection.ALL, 4, LEASE, null));
            assertThat(firstClaim.get()).hasSize(4);
        });
        ClaimHint hint = ClaimHint.after(firstClaim.get()); // as the claimer gives it after a claim that took all 4
        long next = pagesRead(() -> assertThat(queue.claim("w1", NOOP, QueueSelection.ALL, 4, LEASE, hint)).hasSize(4));

        // the first claim reads past the entries of the 50,000 (and their heap rows, the first time: 50,000 pages); the
        // next one starts past the first one's last run (its hint): what any claim of 4 reads and writes
        assertThat(first).as("pages read by a claim from the start of the index").isGreaterThan(1_000);
        assertThat(next).as("pages read by the claim after it").isLessThan(250);
    }

    @Test
    void aWorkerOfOneQueueAfterAClaimThatTookAllItAskedForDoesNotReadTheRunsClaimedBefore() {
        QueueSelection emails = QueueSelection.only(Set.of("emails"));
        // plans made on tables with a single run, the include path's with a hint too
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));
        dueNowInQueue("emails", 2);
        List<Run> warm = queue.claim("w1", NOOP, emails, 1, LEASE, null);
        queue.acknowledge(succeeded(warm));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, emails, 1, LEASE, ClaimHint.after(warm))));

        // a drain of emails half done (one priority, as the hint is read past within it), beside due runs of reports
        dueNowInQueue("emails", 60_000, 5);
        dueNowInQueue("reports", 60_000);
        try (Handle h = pg.jdbi().open()) {
            RunLifecycleGuard.shortcut(h, "UPDATE runs SET status = 'succeeded', finished_at = now() WHERE id IN (SELECT id FROM runs "
                    + "WHERE status = 'pending' AND queue = 'emails' ORDER BY priority, scheduled_for, id LIMIT 50000)");
        }
        java.util.concurrent.atomic.AtomicReference<List<Run>> firstClaim = new java.util.concurrent.atomic.AtomicReference<>();
        long first = pagesRead(() -> {
            firstClaim.set(queue.claim("w1", NOOP, emails, 4, LEASE, null));
            assertThat(firstClaim.get()).hasSize(4);
        });
        ClaimHint hint = ClaimHint.after(firstClaim.get());
        long next = pagesRead(() -> assertThat(queue.claim("w1", NOOP, emails, 4, LEASE, hint)).hasSize(4));

        // as aClaimAfterOneThatTookAllItAskedForDoesNotReadTheRunsClaimedBefore, within the worker's queue
        assertThat(first).as("pages read by a claim from the start of the queue's index range").isGreaterThan(1_000);
        assertThat(next).as("pages read by the claim after it").isLessThan(250);
    }

    @Test
    void aFairClaimReadsEachTenantsRunsWhereTheyAreNotPastAnotherTenantsFlood() {
        // plans made on tables with a single run
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));

        // acme's 20,000 due runs come first in claim order, beta's 10 after them, and 998 more tenants have one each
        dueNowIn("acme", 20_000, Duration.ofMinutes(10));
        dueNowIn("beta", 10, Duration.ofSeconds(1));
        try (Handle h = pg.jdbi().open()) {
            for (int t = 0; t < 998; t++) {
                h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, "
                        + "executor, payload, timeout_seconds, queue, tenant) SELECT gen_random_uuid(), r.job_id, "
                        + "'pending', 5, CAST(? AS timestamptz) + interval '1 day', 0, 1, 'noop', '{}', 60, 'default', ? "
                        + "FROM (SELECT job_id FROM runs LIMIT 1) r", java.sql.Timestamp.from(now), "t" + t);
            }
        }
        java.util.concurrent.atomic.AtomicReference<List<Run>> claimed = new java.util.concurrent.atomic.AtomicReference<>();
        long pages = pagesRead(() -> claimed.set(queue.claim("w1", NOOP, QueueSelection.ALL, 4, LEASE, null)));

        // beta is served beside acme, its runs read from its own place in runs_pending_tenant_idx; the 1,000 tenants
        // with pending runs cost a descent each (about 3 pages), not a read of acme's runs
        assertThat(claimed.get()).extracting(Run::tenant).contains("acme", "beta");
        assertThat(pages).as("pages read by a fair claim among 1,000 tenants, one with 20,000 due runs")
                .isLessThan(5_000);
    }

    private void dueNowIn(String tenant, int n, Duration ago) {
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, queue, tenant) SELECT gen_random_uuid(), r.job_id, 'pending', 5, "
                    + "CAST(? AS timestamptz) - ? * interval '1 millisecond' + g * interval '1 microsecond', 0, 1, "
                    + "'noop', '{}', 60, 'default', ? FROM (SELECT job_id FROM runs LIMIT 1) r, generate_series(1, ?) g",
                    java.sql.Timestamp.from(now), ago.toMillis(), tenant, n);
        }
    }

    @Test
    void aClaimReadsNoWaitingRunOfAWorkflow() {
        // plans made on tables with a single run
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));
        assertThat(queue.claim("w1", NOOP, 16, LEASE)).isEmpty();

        // 100,000 runs waiting for parents, all due already: no claim may read them (issue 32)
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, queue) SELECT gen_random_uuid(), r.job_id, 'waiting', 1 + g % 9, "
                    + "CAST(? AS timestamptz) - interval '1 hour', 0, 1, 'noop', '{}', 60, 'default' "
                    + "FROM (SELECT job_id FROM runs LIMIT 1) r, generate_series(1, 100000) AS g",
                    java.sql.Timestamp.from(now));
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
        }
        pg.insert(aRun().dueAt(now.minusSeconds(1)).withPriority(9));
        long one = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 16, LEASE)).hasSize(1));
        long nothing = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 16, LEASE)).isEmpty());

        // the same bounds as with 50,000 pending runs scheduled for later: the waiting ones are in no pending index
        assertThat(one).as("pages read by a claim of the one due run beside 100,000 waiting ones").isLessThan(150);
        assertThat(nothing).as("pages read by a claim that finds nothing due").isLessThan(80);
    }

    @Test
    void aGuardedClaimReadsNoRunScheduledForLaterEither() {
        PostgresQueueRepository queues = new PostgresQueueRepository(jdbi, clock);
        queues.configure("default", "default", true, false, new io.forgeflow.domain.queue.QueueLimits(1_000, null));
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));

        scheduleForLater(50_000, true);
        pg.insert(aRun().dueAt(now.minusSeconds(1)).withPriority(9));
        long one = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 16, LEASE)).hasSize(1));
        long nothing = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 16, LEASE)).isEmpty());

        // 0004's claim: 20,348 pages for the first (its final update walked a pending index)
        assertThat(one).as("pages read by a guarded claim of the one due run among 50,000 later ones")
                .isLessThan(250);
        assertThat(nothing).as("pages read by a claim that finds nothing due").isLessThan(150);
    }

    @Test
    void aClaimWhereEveryDueRunIsInALimitedQueueDoesNotReadThemAllAsOpenCandidates() {
        PostgresQueueRepository queues = new PostgresQueueRepository(jdbi, clock);
        queues.configure("default", "default", true, false, new io.forgeflow.domain.queue.QueueLimits(100_000, null));
        pg.insert(aRun().dueAt(now.minusSeconds(1)));
        queue.acknowledge(succeeded(queue.claim("w1", NOOP, 1, LEASE)));

        // 20,000 due runs, every one of them in the limited queue
        dueNow(20_000);
        long pages = pagesRead(() -> assertThat(queue.claim("w2", NOOP, 4, LEASE)).hasSize(4));

        // looking for runs of open queues among them read every one: 20,369 pages (their index entries and heap rows)
        assertThat(pages).as("pages read by a claim of 4 runs of a limited queue").isLessThan(400);
    }

    private static List<Acknowledgement> succeeded(List<Run> runs) {
        return runs.stream()
                .map(r -> new Acknowledgement(new RunFence(r.id(), "w1", r.attempt()), AttemptOutcome.SUCCEEDED,
                        RunStatus.SUCCEEDED, Duration.ZERO, "ok", null))
                .toList();
    }

    /** Copies the one job and its run n times (due runs of one-off jobs); no ANALYZE follows. */
    private void grow(int n) {
        try (Handle h = pg.jdbi().open()) {
            // the record in a LATERAL, once per row: (f(...)).* would call f once per column (15 s for 5,000 jobs)
            h.execute("INSERT INTO jobs SELECT c.* FROM jobs j, generate_series(1, ?) g, "
                    + "LATERAL jsonb_populate_record(NULL::jobs, to_jsonb(j) || jsonb_build_object("
                    + "'id', gen_random_uuid(), 'status', 'active', 'idempotency_key', null, 'copy', g)) c", n);
            h.execute("INSERT INTO runs SELECT c.* FROM (SELECT * FROM runs LIMIT 1) r, jobs j, "
                    + "LATERAL jsonb_populate_record(NULL::runs, to_jsonb(r) || jsonb_build_object("
                    + "'id', gen_random_uuid(), "
                    + "'job_id', j.id, 'status', 'pending', 'attempt', 0, 'worker_id', null, 'lease_expires_at', null, "
                    + "'started_at', null, 'finished_at', null, 'output', null, 'error', null)) c "
                    + "WHERE j.id <> r.job_id");
            // this connection's own scans (the copies above) reach the statistics before the first count
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
        }
    }

    /** n pending runs of the one job in the default queue, priority 5, all due a second ago. No ANALYZE follows. */
    private void dueNow(int n) {
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, queue) SELECT gen_random_uuid(), r.job_id, 'pending', 5, "
                    + "CAST(? AS timestamptz) - interval '1 second', 0, 1, 'noop', '{}', 60, 'default' "
                    + "FROM (SELECT job_id FROM runs LIMIT 1) r, generate_series(1, ?)",
                    java.sql.Timestamp.from(now), n);
        }
    }

    /**
     * n pending runs of the one job, due tomorrow and later, with priorities 1 to 9; half of them under a concurrency
     * key when {@code keyed}. No ANALYZE follows.
     */
    private void scheduleForLater(int n, boolean keyed) {
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, queue, concurrency_key, max_concurrent) "
                    + "SELECT gen_random_uuid(), r.job_id, 'pending', 1 + g % 9, "
                    + "CAST(? AS timestamptz) + interval '1 day' + g * interval '1 second', 0, 1, 'noop', '{}', 60, "
                    + "'default', CASE WHEN ? AND g % 2 = 0 THEN 'k' END, CASE WHEN ? AND g % 2 = 0 THEN 5 END "
                    + "FROM (SELECT job_id FROM runs LIMIT 1) r, generate_series(1, ?) AS g",
                    java.sql.Timestamp.from(now), keyed, keyed, n);
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
        }
    }

    /** Pages of runs and its indexes (heap and index blocks, from cache or disk) that the action read. */
    private long pagesRead(Runnable action) {
        long before = runsPages();
        action.run();
        return runsPages() - before;
    }

    private long runsPages() {
        try (Handle h = jdbi.open()) {
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
            return h.select("SELECT heap_blks_hit + heap_blks_read + coalesce(idx_blks_hit, 0) + "
                            + "coalesce(idx_blks_read, 0) FROM pg_statio_user_tables WHERE relname = 'runs'")
                    .mapTo(Long.class).one();
        }
    }

    /** Rows read per table (by scans and index fetches), as PostgreSQL counted them for every connection to this class's own database so far. */
    private Map<String, Long> rowsRead() {
        try (Handle h = jdbi.open()) {
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
            return h.select("SELECT relname, seq_tup_read + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_user_tables "
                            + "WHERE relname IN ('jobs', 'runs', 'run_attempts')")
                    .reduceRows(new java.util.HashMap<String, Long>(), (m, row) -> {
                        m.put(row.getColumn("relname", String.class), row.getColumn("read", Long.class));
                        return m;
                    });
        }
    }
}
