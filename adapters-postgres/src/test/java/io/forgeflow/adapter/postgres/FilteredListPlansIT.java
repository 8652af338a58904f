package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobFilter;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunFilter;
import io.forgeflow.domain.run.RunStatus;
import org.apache.tomcat.jdbc.pool.DataSource;
import org.apache.tomcat.jdbc.pool.PoolProperties;
import org.assertj.core.api.SoftAssertions;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every filter of the job and run lists keeps a page cheap at 200,000 runs and 20,000 jobs (1,000,000 and 100,000 with
 * {@code -Plarge-plans}, or {@code -Dforgeflow.test.planRuns=N}): the rows a page reads,
 * counted in PostgreSQL's own statistics as PlanStabilityIT counts them, stay in proportion to the page (or to the few
 * rows that match), never to the table. The connection makes generic plans from the first execution
 * ({@code plan_cache_mode}), so the test also shows that the lists plan each statement for its values (FilteredLists);
 * the tables are analyzed once loaded, and the BRIN index summarized, as autovacuum does in production.
 *
 * <p>Then it drops migration 0013's indexes and checks that the pages of a rare queue, a rare label, a name prefix and
 * the oldest scheduled runs read more than the bound (the primary key backwards through most of the table), and puts
 * the indexes back.
 *
 * <p>The bound is the same at both sizes (it follows from the page and the rarest filter, not from the tables), and
 * a scan of either table reads more than it at both, so the smaller size proves the same: reads in proportion to the
 * page, and more than that once the indexes are gone. CI runs the smaller one (4 s instead of 20 s).
 */
class FilteredListPlansIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migratedAlone();

    /** Ten runs per job; a multiple of 100,000 keeps every filter below at least a page or a handful of rows. */
    static final int RUNS = Integer.getInteger("forgeflow.test.planRuns", 200_000);
    static final int JOBS = RUNS / 10;
    static final int PAGE = 50;
    /**
     * A page may read this many rows: the page and the rows a filter skips on the way (a label on 1% of the runs: about
     * 5,100 by the primary key), or the rows that match when there are few, with a block range's neighbours. A scan
     * reads all the jobs (20,000 or more) or all the runs.
     */
    static final long BOUND = 6_000;
    static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    DataSource genericPlans;
    Jdbi jdbi;
    PostgresJobRepository jobs;
    PostgresRunRepository runs;

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
        genericPlans = new DataSource(p);
        jdbi = PostgresJdbi.create(genericPlans);
        jobs = new PostgresJobRepository(jdbi, null);
        runs = new PostgresRunRepository(jdbi, null);
    }

    @AfterEach
    void close() {
        genericPlans.close(true);
    }

    @Test
    void everyFilteredPageReadsRowsInProportionToThePageNotToTheTables() {
        load();
        SoftAssertions soft = new SoftAssertions();

        // jobs, newest first (the counts in brackets are at 100,000 jobs)
        jobPage(soft, "status=paused (20)", JobFilter.status(JobStatus.PAUSED), Math.min(PAGE, JOBS / 5_000));
        jobPage(soft, "queue=billing (1%)", new JobFilter(null, "billing", Map.of(), null), PAGE);
        jobPage(soft, "queue=default (99%)", new JobFilter(null, "default", Map.of(), null), PAGE);
        jobPage(soft, "queue=audit (50 jobs)", AUDIT_JOBS, Math.min(PAGE, JOBS / 2_000));
        jobPage(soft, "label team:t7 (1%)", new JobFilter(null, null, Map.of("team", "t7"), null), PAGE);
        jobPage(soft, "label tier:gold (33 jobs)", GOLD_JOBS, Math.min(PAGE, JOBS / 3_000));
        jobPage(soft, "two labels", new JobFilter(null, null, Map.of("tier", "gold", "team", "t0"), null),
                Math.min(PAGE, JOBS / 3_000));
        jobPage(soft, "name_prefix nightly- (100 jobs)", NIGHTLY_JOBS, Math.min(PAGE, JOBS / 1_000));
        jobPage(soft, "name_prefix job-9999 (11)", new JobFilter(null, null, Map.of(), "job-9999"),
                (int) Math.min(PAGE, java.util.stream.IntStream.rangeClosed(1, JOBS)
                        .filter(g -> g % 1_000 != 0 && ("job-" + g).startsWith("job-9999")).count()));

        runPages(soft);
        soft.assertAll();

        // the same pages without migration 0013's indexes: the test can fail
        try (Handle h = pg.jdbi().open()) {
            INDEXES.forEach(index -> h.execute("DROP INDEX " + index.split(" ")[2]));
        }
        try {
            assertThat(rowsReadBy(() -> jobs.listMatching(AUDIT_JOBS, PAGE, null))).isGreaterThan(BOUND);
            assertThat(rowsReadBy(() -> jobs.listMatching(GOLD_JOBS, PAGE, null))).isGreaterThan(BOUND);
            assertThat(rowsReadBy(() -> jobs.listMatching(NIGHTLY_JOBS, PAGE, null))).isGreaterThan(BOUND);
            assertThat(rowsReadBy(() -> jobs.listForDisplayMatching(GOLD_JOBS, PAGE, null, ListBudget.DEFAULT)))
                    .isGreaterThan(BOUND);
            assertThat(rowsReadBy(() -> runs.listForDisplayMatching(AUDIT_RUNS, PAGE, null, ListBudget.DEFAULT))).isGreaterThan(BOUND);
            assertThat(rowsReadBy(() -> runs.listForDisplayMatching(GOLD_RUNS, PAGE, null, ListBudget.DEFAULT))).isGreaterThan(BOUND);
            assertThat(rowsReadBy(() -> runs.listForDisplayMatching(OLDEST_RUNS, PAGE, null, ListBudget.DEFAULT))).isGreaterThan(BOUND);
        } finally {
            try (Handle h = pg.jdbi().open()) {
                h.execute("TRUNCATE jobs CASCADE");
                INDEXES.forEach(h::execute);
            }
        }
    }

    /**
     * Issue 46: the same run pages with every finished run moved to the finished history (run_history, a partition per
     * day): the lists read both, each through the same kind of index, and a page reads as little (rows read in runs
     * and in every history partition counted together).
     */
    @Test
    void theSameRunPagesReadAsLittleWithTheFinishedRunsInHistory() {
        load();
        try (Handle h = pg.jdbi().open()) {
            Instant end = T0.plusSeconds(RUNS + 10L);
            int moved = h.select("SELECT forgeflow_move_history(CAST(? AS timestamptz), CAST(? AS timestamptz), ?, "
                            + "CAST(? AS timestamptz))", java.sql.Timestamp.from(T0), java.sql.Timestamp.from(end), RUNS,
                    java.sql.Timestamp.from(end)).mapTo(Integer.class).one();
            assertThat(moved).isEqualTo(RUNS - RUNS / 100);
            h.execute("ANALYZE runs");
            h.execute("ANALYZE run_history");
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
        }
        SoftAssertions soft = new SoftAssertions();
        runPages(soft);
        soft.assertAll();
        try (Handle h = pg.jdbi().open()) {
            h.execute("TRUNCATE jobs CASCADE");
            h.execute("TRUNCATE run_history, attempt_history");
        }
    }

    /** The run pages, newest first, each filter with the rows it should list. */
    private void runPages(SoftAssertions soft) {
        String someJob = jdbi.withHandle(h -> h.select("SELECT id::text FROM jobs WHERE name = 'job-500'")
                .mapTo(String.class).one());
        runPage(soft, "job_id", RunFilter.of(someJob, null), 10);
        runPage(soft, "status=pending (1%)", RunFilter.of(null, RunStatus.PENDING), PAGE);
        runPage(soft, "status=dead (0.1%)", RunFilter.of(null, RunStatus.DEAD), PAGE);
        runPage(soft, "queue=billing (1%)", filter(null, "billing", Map.of(), null, null, null), PAGE);
        runPage(soft, "queue=default (99%)", filter(null, "default", Map.of(), null, null, null), PAGE);
        runPage(soft, "queue=audit (500 runs)", AUDIT_RUNS, PAGE);
        runPage(soft, "label team:t2 (1%)", filter(null, null, Map.of("team", "t2"), null, null, null), PAGE);
        runPage(soft, "label tier:gold (330 runs)", GOLD_RUNS, PAGE);
        runPage(soft, "scheduled_after (newest)", filter(null, null, Map.of(), T0.plusSeconds(RUNS - 2_000), null,
                null), PAGE);
        runPage(soft, "scheduled_before (oldest 1,000)", OLDEST_RUNS, PAGE);
        runPage(soft, "scheduled window (old)", filter(null, null, Map.of(), T0.plusSeconds(RUNS / 5),
                T0.plusSeconds(RUNS / 5 + 1_000), null), PAGE);
        runPage(soft, "finished_after (last 1,000 finished)", filter(null, null, Map.of(), null, null,
                T0.plusSeconds(RUNS - RUNS / 100 - 1_000)), PAGE); // the last 1% pending; at every size
        runPage(soft, "status and queue (100)", new RunFilter(null, RunStatus.PENDING, "billing", Map.of(), null, null,
                null), Math.min(PAGE, RUNS / 10_000));
    }

    static final JobFilter AUDIT_JOBS = new JobFilter(null, "audit", Map.of(), null);
    static final JobFilter GOLD_JOBS = new JobFilter(null, null, Map.of("tier", "gold"), null);
    static final JobFilter NIGHTLY_JOBS = new JobFilter(null, null, Map.of(), "nightly-");
    static final RunFilter AUDIT_RUNS = filter(null, "audit", Map.of(), null, null, null);
    static final RunFilter GOLD_RUNS = filter(null, null, Map.of("tier", "gold"), null, null, null);
    static final RunFilter OLDEST_RUNS = filter(null, null, Map.of(), null, T0.plusSeconds(1_000), null);

    /** The CREATE INDEX statements of migration 0013, as the migration has them. */
    static final java.util.List<String> INDEXES = indexesOfMigration0013();

    private static java.util.List<String> indexesOfMigration0013() {
        try (java.io.InputStream in = FilteredListPlansIT.class.getResourceAsStream(
                "/db/changelog/0013-labels-and-filters.sql")) {
            java.util.List<String> statements = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                    .lines().filter(line -> line.startsWith("CREATE INDEX ")).map(line -> line.replaceAll(";$", ""))
                    .toList();
            assertThat(statements).hasSize(6);
            return statements;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private long rowsReadBy(Supplier<Page<?>> list) {
        Map<String, Long> before = rowsRead();
        list.get();
        Map<String, Long> after = rowsRead();
        return after.get("jobs") - before.get("jobs") + after.get("runs") - before.get("runs");
    }

    private static RunFilter filter(RunStatus status, String queue, Map<String, String> labels, Instant after,
                                    Instant before, Instant finishedAfter) {
        return new RunFilter(null, status, queue, labels, after, before, finishedAfter);
    }

    private void jobPage(SoftAssertions soft, String what, JobFilter filter, int expected) {
        measure(soft, "jobs " + what, () -> jobs.listMatching(filter, PAGE, null), expected);
        measure(soft, "jobs for display " + what, () -> jobs.listForDisplayMatching(filter, PAGE, null,
                ListBudget.DEFAULT), expected);
    }

    private void runPage(SoftAssertions soft, String what, RunFilter filter, int expected) {
        measure(soft, "runs " + what, () -> runs.listForDisplayMatching(filter, PAGE, null, ListBudget.DEFAULT),
                expected);
    }

    private void measure(SoftAssertions soft, String what, Supplier<Page<?>> list, int expected) {
        Page<?>[] page = new Page<?>[1];
        long read = rowsReadBy(() -> page[0] = list.get());
        soft.assertThat(page[0].items()).as(what + ": items").hasSize(expected);
        soft.assertThat(read).as(what + ": rows of jobs and runs read").isLessThanOrEqualTo(BOUND);
    }

    /**
     * JOBS jobs ('job-N', 1 in 1,000 'nightly-N'; 1% in queue billing (all labelled team:t2), 1 in 2,000 in audit; half
     * labelled team:t(N/2%50), 1 in 3,000 also tier:gold; 1 in 5,000 paused) and RUNS runs, ten per job, scheduled a second apart in id order (newest last), 99%
     * succeeded, the last 1% pending, every 1,000th dead; each with its job's queue and labels.
     */
    private void load() {
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO jobs (id, name, executor, payload, status, queue, labels, created_at, updated_at) "
                    + "SELECT CAST(lpad(to_hex(g), 8, '0') || '-0000-7000-8000-000000000000' AS uuid), "
                    + "CASE WHEN g % 1000 = 0 THEN 'nightly-' ELSE 'job-' END || g, 'noop', '{}', "
                    + "CASE WHEN g % 5000 = 1 THEN 'paused' ELSE 'active' END, "
                    + "CASE WHEN g % 100 = 4 THEN 'billing' WHEN g % 2000 = 7 THEN 'audit' ELSE 'default' END, "
                    + "CASE WHEN g % 2 = 1 THEN '{}'::jsonb ELSE jsonb_build_object('team', 't' || (g / 2) % 50) "
                    + "|| CASE WHEN g % 3000 = 0 THEN '{\"tier\": \"gold\"}'::jsonb ELSE '{}'::jsonb END END, "
                    + "CAST(? AS timestamptz), CAST(? AS timestamptz) FROM generate_series(1, ?) g",
                    java.sql.Timestamp.from(T0), java.sql.Timestamp.from(T0), JOBS);
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, "
                    + "payload, timeout_seconds, queue, labels, finished_at, created_at) "
                    + "SELECT CAST(lpad(to_hex(g), 8, '0') || '-0000-7000-8000-000000000001' AS uuid), j.id, "
                    + "CASE WHEN g > ? THEN 'pending' WHEN g % 1000 = 0 THEN 'dead' ELSE 'succeeded' END, 5, "
                    + "CAST(? AS timestamptz) + g * interval '1 second', CASE WHEN g > ? THEN 0 ELSE 1 END, 3, 'noop', "
                    + "'{}', 60, j.queue, j.labels, "
                    + "CASE WHEN g > ? THEN NULL ELSE CAST(? AS timestamptz) + (g + 1) * interval '1 second' END, "
                    + "CAST(? AS timestamptz) FROM generate_series(1, ?) g "
                    + "JOIN jobs j ON j.id = CAST(lpad(to_hex(1 + (g - 1) % ?), 8, '0') "
                    + "|| '-0000-7000-8000-000000000000' AS uuid)",
                    RUNS - RUNS / 100, java.sql.Timestamp.from(T0), RUNS - RUNS / 100, RUNS - RUNS / 100,
                    java.sql.Timestamp.from(T0), java.sql.Timestamp.from(T0), RUNS, JOBS);
            // what autovacuum (and the BRIN index's autosummarize) do to loaded tables in production
            h.select("SELECT brin_summarize_new_values(CAST('runs_scheduled_for_brin' AS regclass))").mapTo(Long.class)
                    .one();
            h.execute("ANALYZE jobs");
            h.execute("ANALYZE runs");
            h.execute("ANALYZE run_attempts");
            assertThat(h.select("SELECT count(*) FROM runs").mapTo(Long.class).one()).isEqualTo(RUNS);
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
        }
    }

    /** Rows read per table (by scans and index fetches), as PostgreSQL counted them for every connection to this class's own database so far. */
    private Map<String, Long> rowsRead() {
        try (Handle h = jdbi.open()) {
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
            return h.select("SELECT relname, seq_tup_read + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_user_tables "
                            + "WHERE relname IN ('jobs', 'runs') OR relname ~ '^run_history_p'")
                    .reduceRows(new HashMap<String, Long>(), (m, row) -> {
                        // a history partition's rows count as rows of runs
                        String table = row.getColumn("relname", String.class).startsWith("run_history") ? "runs"
                                : row.getColumn("relname", String.class);
                        m.merge(table, row.getColumn("read", Long.class), Long::sum);
                        return m;
                    });
        }
    }
}
