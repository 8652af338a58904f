package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.Retention;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Retention on PostgreSQL ({@link Retention}). Runs: one {@code DELETE} per batch over the oldest finished runs,
 * found by the partial index on {@code finished_at}, locked with {@code SKIP LOCKED}; their attempt rows go by
 * {@code ON DELETE CASCADE}. Jobs: one short transaction per batch that first locks the candidates (so no run can be
 * added to them meanwhile), then deletes those that still have no runs.
 */
public final class PostgresRetention implements Retention {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PostgresRetention.class);

    private final Jdbi jdbi;
    private final DbClock clock;
    /** {@code statement_timeout} of a retention batch (longer than the session's); null keeps the session's. */
    private final Duration batchTimeout;
    private volatile boolean warnedAutovacuumOff;
    /** The node of an earlier release last named in the log for holding the move back. */
    private volatile String warnedOlderNode;
    /** How long the leader's history DDL (a partition created or dropped) waits for a reader before giving way. */
    static final Duration HISTORY_LOCK_TIMEOUT = Duration.ofMillis(500);
    /** The statement that analyzes each table whose statistics {@link #analyzeStale} keeps fresh. */
    private static final java.util.Map<String, String> ANALYZE = java.util.Map.of(
            "jobs", "ANALYZE jobs", "runs", "ANALYZE runs", "run_attempts", "ANALYZE run_attempts");

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresRetention(Jdbi jdbi, Clock testClock) {
        this(jdbi, testClock, null);
    }

    /**
     * @param batchTimeout the {@code statement_timeout} of each delete batch and ANALYZE (a transaction of its own with
     *                     {@code SET LOCAL}), longer than the node's default; null keeps the session's
     */
    public PostgresRetention(Jdbi jdbi, Clock testClock, Duration batchTimeout) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
        if (batchTimeout != null && (batchTimeout.isNegative() || batchTimeout.isZero())) {
            throw new IllegalArgumentException("batchTimeout must be positive, was " + batchTimeout);
        }
        this.batchTimeout = batchTimeout;
    }

    /** Runs {@code work} in a transaction whose statements may take {@link #batchTimeout}. */
    private <T> T inBatch(org.jdbi.v3.core.HandleCallback<T, RuntimeException> work) {
        return jdbi.inTransaction(handle -> {
            if (batchTimeout != null) {
                handle.execute("SELECT set_config('statement_timeout', ?, true)", batchTimeout.toMillis() + "ms");
            }
            return work.withHandle(handle);
        });
    }

    @Override
    public int deleteFinishedRuns(Duration olderThan, int limit) {
        long millis = PostgresRunQueue.positiveMillis(olderThan, "olderThan");
        checkLimit(limit);
        return inBatch(handle -> handle.attach(RetentionSql.class).deleteFinishedRuns(millis, limit, clock.now()));
    }

    /**
     * {@inheritDoc} One statement per batch (forgeflow_move_history), which first creates the history partitions the
     * batch and the next two days need, under a short {@code lock_timeout}: when a reader holds the history tables,
     * this batch gives way (0) and the next pass tries again. Nothing moves while a live api or scheduler node of an
     * earlier release, which reads finished runs in {@code runs} only, is registered (nodes.history_reader behind its
     * version); a worker of an earlier release reads no finished run and holds nothing back.
     */
    @Override
    public int moveToHistory(Duration after, Duration keep, int limit) {
        long millis = PostgresRunQueue.positiveMillis(after, "after");
        long keepMillis = PostgresRunQueue.positiveMillis(keep, "keep");
        checkLimit(limit);
        java.time.Instant now = clock.now();
        String olderNode = jdbi.withHandle(h -> h.select("SELECT worker_id || ' (' || version || ')' FROM nodes "
                        + "WHERE last_seen_at > coalesce(CAST(? AS timestamptz), now()) - interval '10 minutes' "
                        + "AND history_reader IS DISTINCT FROM version AND roles && ARRAY['api', 'scheduler'] "
                        + "ORDER BY worker_id LIMIT 1", now)
                .mapTo(String.class).findOne().orElse(null));
        if (olderNode != null) {
            if (!olderNode.equals(warnedOlderNode)) {
                warnedOlderNode = olderNode;
                LOG.warn("history: finished runs stay in runs while node {} of an earlier release is live (it does "
                        + "not read run_history); they move once every node runs this release", olderNode);
            }
            return 0;
        }
        try {
            return inBatch(handle -> {
                handle.execute("SELECT set_config('lock_timeout', ?, true)", HISTORY_LOCK_TIMEOUT.toMillis() + "ms");
                return handle.createQuery("SELECT forgeflow_move_history("
                                + "coalesce(CAST(:now AS timestamptz), now()) - :keep * interval '1 millisecond', "
                                + "coalesce(CAST(:now AS timestamptz), now()) - :millis * interval '1 millisecond', "
                                + ":limit, coalesce(CAST(:now AS timestamptz), now()))")
                        .bind("now", now).bind("keep", keepMillis).bind("millis", millis).bind("limit", limit)
                        .mapTo(Integer.class).one();
            });
        } catch (RuntimeException e) {
            if (!isLockTimeout(e)) {
                throw e;
            }
            LOG.info("history: a reader held the history tables past {}; the move goes on at the next pass",
                    HISTORY_LOCK_TIMEOUT);
            return 0;
        }
    }

    /**
     * {@inheritDoc} Each day is one {@code DROP TABLE} of its two partitions, in a transaction of its own under a short
     * {@code lock_timeout}: a day whose tables a reader holds is left for the next pass.
     */
    @Override
    public List<String> dropHistory(Duration keep) {
        long millis = PostgresRunQueue.positiveMillis(keep, "keep");
        java.time.Instant now = clock.now();
        List<String> days = jdbi.withHandle(h -> h.createQuery("SELECT forgeflow_history_droppable("
                        + "coalesce(CAST(:now AS timestamptz), now()) - :millis * interval '1 millisecond')")
                .bind("now", now).bind("millis", millis).mapTo(String.class).list());
        List<String> dropped = new java.util.ArrayList<>();
        for (String day : days) {
            try {
                jdbi.useTransaction(h -> {
                    h.execute("SELECT set_config('lock_timeout', ?, true)", HISTORY_LOCK_TIMEOUT.toMillis() + "ms");
                    h.execute("SELECT forgeflow_drop_history_day(?)", day);
                });
                dropped.add(day);
            } catch (RuntimeException e) {
                if (!isLockTimeout(e)) {
                    throw e;
                }
                LOG.info("history: a reader held day {} past {}; it is dropped at the next pass", day,
                        HISTORY_LOCK_TIMEOUT);
                break;
            }
        }
        return dropped;
    }

    private static boolean isLockTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException sql && "55P03".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int deleteFinishedJobs(Duration olderThan, int limit) {
        long millis = PostgresRunQueue.positiveMillis(olderThan, "olderThan");
        checkLimit(limit);
        return inBatch(handle -> {
            RetentionSql sql = handle.attach(RetentionSql.class);
            List<String> locked = sql.lockFinishedJobs(millis, limit, clock.now());
            return locked.isEmpty() ? 0 : sql.deleteJobs(locked.toArray(String[]::new));
        });
    }

    /**
     * Where autovacuum is off, analyzes the tables that changed enough since their statistics were last gathered
     * (as autovacuum's own analyze would: 50 rows plus 10 % of the table). A statement plan that a pooled connection
     * made while the tables were small is kept until an ANALYZE invalidates it: without one, on this project's
     * benchmark machine, the acknowledgement went from milliseconds to 35 s per batch at 165,000 jobs. The first
     * call that finds autovacuum off says so in the log, once.
     */
    @Override
    public List<String> refreshStatistics() {
        boolean autovacuum = jdbi.withHandle(h -> h.select("SELECT current_setting('autovacuum') = 'on'")
                .mapTo(Boolean.class).one());
        if (autovacuum) {
            return List.of();
        }
        if (!warnedAutovacuumOff) {
            warnedAutovacuumOff = true;
            LOG.warn("autovacuum is off on this PostgreSQL server: the leader analyzes ForgeFlow's tables itself so "
                    + "that query plans follow their growth, but nothing removes dead rows, and the claim slows down as "
                    + "they pile up. Turn autovacuum on (ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf();)");
        }
        return analyzeStale();
    }

    /** Analyzes the scheduler's tables whose statistics are stale, whatever autovacuum's setting. */
    List<String> analyzeStale() {
        List<String> stale = jdbi.withHandle(h -> h.select("SELECT relname FROM pg_stat_user_tables "
                        + "WHERE schemaname = current_schema() AND (relname IN ('jobs', 'runs', 'run_attempts') "
                        + "OR relname ~ '^(run|attempt)_history_p[0-9]{8}$') "
                        + "AND n_mod_since_analyze >= 50 + 0.1 * greatest(n_live_tup, 0) ORDER BY relname")
                .mapTo(String.class).list());
        for (String table : stale) {
            String analyze = ANALYZE.get(table);
            if (analyze == null) { // a history partition
                inBatch(h -> h.execute("SELECT forgeflow_analyze_history(?)", table));
                continue;
            }
            inBatch(h -> h.execute(analyze));
        }
        return stale;
    }

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be between 1 and 100000, was " + limit);
        }
    }
}
