package io.forgeflow.bench;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The database work of a workload's window, per run (issue 40): commits, rows written per table, HOT updates, index
 * reads, and the statements when {@code pg_stat_statements} is loaded. Deltas of the server's cumulative statistics of
 * the workload's database, read with a probe connection; the caller waits for the backends to flush theirs (an idle
 * backend flushes within 10 s in PostgreSQL 15) before {@link #stop}.
 */
final class DbCounts {
    private final Connection probe;
    private final String database;
    private final boolean statements;
    private Snapshot start;

    DbCounts(Connection probe, String database) {
        this.probe = probe;
        this.database = database;
        this.statements = statementsLoaded(probe);
    }

    /** Table name (or "index table.name") to counters, plus "db" for the database's commits and rollbacks. */
    private record Snapshot(Map<String, long[]> tables, Map<String, long[]> indexes, long[] db,
                            Map<String, long[]> statements) {
    }

    void start() {
        start = snapshot();
    }

    /** Prints the deltas since {@link #start()} divided by {@code runs}. */
    void stop(long runs, PrintStream out) {
        Snapshot end = snapshot();
        double n = Math.max(1, runs);
        out.printf(Locale.ROOT, "  database work per run over %,d runs (deltas of pg_stat_*):%n", runs);
        long[] db = minus(end.db, start.db);
        out.printf(Locale.ROOT, "    commits %.2f, rollbacks %.2f%n", db[0] / n, db[1] / n);
        double indexWritesBound = 0;
        out.printf(Locale.ROOT, "    %-22s %8s %8s %8s %8s %8s %9s %16s%n", "table", "ins", "upd", "hot", "del",
                "indexes", "(partial)", "index writes <=");
        for (Map.Entry<String, long[]> e : end.tables.entrySet()) {
            long[] d = minus(e.getValue(), start.tables.getOrDefault(e.getKey(), new long[e.getValue().length]));
            if ((d[0] + d[1] + d[3]) / n < 0.005) {
                continue; // untouched by the workload (the migration's rows may be flushed late)
            }
            long[] now = e.getValue();
            // each inserted row and each non-HOT update writes an entry into every index (a partial one only when the
            // new version matches its predicate, which these counters cannot see): an upper bound
            double bound = (d[0] + d[1] - d[2]) * now[4] / n;
            indexWritesBound += bound;
            out.printf(Locale.ROOT, "    %-22s %8.2f %8.2f %8.2f %8.2f %8d %9d %16.2f%n", e.getKey(), d[0] / n,
                    d[1] / n, d[2] / n, d[3] / n, now[4], now[5], bound);
        }
        out.printf(Locale.ROOT, "    index entries written: at most %.2f per run (partial indexes counted as full)%n",
                indexWritesBound);
        out.printf(Locale.ROOT, "    %-44s %8s %10s %10s%n", "index (reads)", "scans", "tup_read", "tup_fetch");
        for (Map.Entry<String, long[]> e : end.indexes.entrySet()) {
            long[] d = minus(e.getValue(), start.indexes.getOrDefault(e.getKey(), new long[3]));
            if (d[0] / n < 0.005 && d[1] / n < 0.005) {
                continue;
            }
            out.printf(Locale.ROOT, "    %-44s %8.2f %10.2f %10.2f%n", e.getKey(), d[0] / n, d[1] / n, d[2] / n);
        }
        if (!statements) {
            out.println("    statements: pg_stat_statements is not loaded on this server (shared_preload_libraries), "
                    + "so they are not counted");
            return;
        }
        List<Map.Entry<String, long[]>> rows = new ArrayList<>();
        long calls = 0;
        for (Map.Entry<String, long[]> e : end.statements.entrySet()) {
            long[] d = minus(e.getValue(), start.statements.getOrDefault(e.getKey(), new long[2]));
            if (d[0] > 0) {
                rows.add(Map.entry(e.getKey(), d));
                calls += d[0];
            }
        }
        rows.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        out.printf(Locale.ROOT, "    statements %.2f per run; by execution time:%n", calls / n);
        for (Map.Entry<String, long[]> e : rows.subList(0, Math.min(12, rows.size()))) {
            String q = e.getKey().replaceAll("\\s+", " ");
            out.printf(Locale.ROOT, "    %8.3f calls %8.1f us  %s%n", e.getValue()[0] / n, e.getValue()[1] / 1000.0 / n,
                    q.length() > 90 ? q.substring(0, 90) : q);
        }
    }

    private static long[] minus(long[] a, long[] b) {
        long[] d = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    private static boolean statementsLoaded(Connection c) {
        try (Statement st = c.createStatement();
             ResultSet r = st.executeQuery("SELECT current_setting('shared_preload_libraries') "
                     + "LIKE '%pg_stat_statements%'")) {
            r.next();
            if (!r.getBoolean(1)) {
                return false;
            }
            st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private Snapshot snapshot() {
        try (Statement st = probe.createStatement()) {
            st.execute("SELECT pg_stat_clear_snapshot()");
            Map<String, long[]> tables = new LinkedHashMap<>();
            try (ResultSet r = st.executeQuery("SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, "
                    + "t.n_tup_del, (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid), "
                    + "(SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid AND i.indpred IS NOT NULL) "
                    + "FROM pg_stat_user_tables t ORDER BY t.relname")) {
                while (r.next()) {
                    tables.put(r.getString(1), new long[]{r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5),
                            r.getLong(6), r.getLong(7)});
                }
            }
            Map<String, long[]> indexes = new LinkedHashMap<>();
            try (ResultSet r = st.executeQuery("SELECT relname || '.' || indexrelname, idx_scan, idx_tup_read, "
                    + "idx_tup_fetch FROM pg_stat_user_indexes ORDER BY 1")) {
                while (r.next()) {
                    indexes.put(r.getString(1), new long[]{r.getLong(2), r.getLong(3), r.getLong(4)});
                }
            }
            long[] db = new long[2];
            try (java.sql.PreparedStatement ps = probe.prepareStatement("SELECT xact_commit, xact_rollback "
                    + "FROM pg_stat_database WHERE datname = ?")) {
                ps.setString(1, database);
                try (ResultSet r = ps.executeQuery()) {
                    if (r.next()) {
                        db = new long[]{r.getLong(1), r.getLong(2)};
                    }
                }
            }
            Map<String, long[]> calls = new LinkedHashMap<>();
            if (statements) {
                try (ResultSet r = st.executeQuery("SELECT query, sum(calls)::bigint, "
                        + "(sum(total_exec_time) * 1000000)::bigint FROM public.pg_stat_statements s JOIN pg_database d "
                        + "ON d.oid = s.dbid WHERE d.datname = current_database() GROUP BY query")) {
                    while (r.next()) {
                        calls.put(r.getString(1), new long[]{r.getLong(2), r.getLong(3)});
                    }
                }
            }
            return new Snapshot(tables, indexes, db, calls);
        } catch (SQLException e) {
            throw new IllegalStateException("reading the database's statistics failed", e);
        }
    }
}
