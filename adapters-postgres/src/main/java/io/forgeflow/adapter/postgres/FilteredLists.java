package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.port.JobFilter;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunFilter;
import io.forgeflow.domain.run.Run;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lists of {@code GET /api/jobs} and {@code GET /api/runs}: newest first (UUIDv7 ids are time-ordered), keyset
 * paginated by the last id of the previous page, plain reads without locks. The statement holds only the conditions
 * of the filters given, and is planned for its values ({@code plan_cache_mode = force_custom_plan} for the
 * transaction), so each filter gets the index that serves it (migration 0013 and docs/API.md, "Filters"):
 * <ul>
 *   <li>{@code status}: (status, id DESC); {@code job_id}: (job_id, id DESC); jobs' {@code queue}: (queue, id DESC);
 *   <li>runs' {@code queue}: (queue, id DESC) over runs outside the default queue, the primary key for the default one;
 *   <li>{@code label}: a GIN index (jsonb_path_ops) over labelled rows, or the primary key when most rows match;
 *   <li>{@code name_prefix}: (name text_pattern_ops); {@code scheduled_after} alone: the primary key (recent runs
 *       match first); with {@code scheduled_before}: a BRIN index of scheduled_for ({@link #runOrder});
 *       {@code finished_after}: (finished_at) over finished runs.
 * </ul>
 * A page therefore reads rows in proportion to the page, or to the rows that match when they are few, never a scan of
 * the table (FilteredListPlansIT); a time window reads the rows in it, so {@code scheduled_before} reads every run
 * scheduled before it unless {@code scheduled_after} (or another filter) narrows it.
 */
final class FilteredLists {
    private static final String RUN_COLUMNS = "r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, "
            + "r.scheduled_for, r.started_at, r.finished_at, "
            // a run that is not running shows the worker of its last attempt (one primary-key probe per row returned)
            + "coalesce(r.worker_id, (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = r.id "
            + "AND a.attempt = r.attempt)) AS worker_id, r.lease_expires_at, r.error, r.executor, r.timeout_seconds, "
            + "r.cancel_requested, r.created_at, r.labels";
    /** For a response: the output's last :tail characters and no payload (a java run's handler alone). */
    private static final String DISPLAY_COLUMNS = ", right(r.output, :tail) AS output, "
            + "coalesce(char_length(r.output) > :tail, false) AS output_truncated, "
            + "CASE WHEN r.executor = 'java' THEN jsonb_build_object('handler', r.payload -> 'handler') "
            + "ELSE '{}'::jsonb END AS payload";

    private FilteredLists() {
    }

    static Page<Job> jobs(Jdbi jdbi, JobFilter filter, int limit, String cursor) {
        String after = Cursors.decode(cursor);
        Where where = new Where();
        if (filter.status() == null) {
            where.add("status <> 'deleted'");
        } else {
            where.add("status = :status", "status", filter.status().wireName());
        }
        if (filter.queue() != null) {
            where.add("queue = :queue", "queue", filter.queue());
        }
        labels(where, "labels", filter.labels());
        if (filter.namePrefix() != null) {
            where.add("name LIKE :namePrefix", "namePrefix", likePrefix(filter.namePrefix()));
        }
        if (after != null) {
            where.add("id < CAST(:after AS uuid)", "after", after);
        }
        String sql = "SELECT * FROM jobs" + where + " ORDER BY id DESC LIMIT :limit";
        List<Job> rows = read(jdbi, sql, where, limit, q -> q.mapTo(Job.class).list());
        return Cursors.page(rows, limit, Job::id);
    }

    static Page<Run> runs(Jdbi jdbi, RunFilter filter, int limit, String cursor) {
        Where where = runWhere(filter, Cursors.decode(cursor));
        if (where == null) {
            return new Page<>(List.of(), null);
        }
        String sql = "SELECT " + RUN_COLUMNS + ", r.output, r.payload FROM runs r" + where
                + " ORDER BY " + runOrder(filter) + " LIMIT :limit";
        return Cursors.page(read(jdbi, sql, where, limit, q -> q.mapTo(Run.class).list()), limit, Run::id);
    }

    static Page<ListedRun> runsForDisplay(Jdbi jdbi, RunFilter filter, int limit, String cursor) {
        Where where = runWhere(filter, Cursors.decode(cursor));
        if (where == null) {
            return new Page<>(List.of(), null);
        }
        String sql = "SELECT " + RUN_COLUMNS + DISPLAY_COLUMNS + " FROM runs r" + where
                + " ORDER BY " + runOrder(filter) + " LIMIT :limit";
        where.values.put("tail", ListedRun.OUTPUT_TAIL_CHARS);
        return Cursors.page(read(jdbi, sql, where, limit, q -> q.mapTo(ListedRun.class).list()), limit,
                listed -> listed.run().id());
    }

    /**
     * Newest first. With {@code scheduled_before}, by the id's text (the same order: lower-case hex, hyphens in fixed
     * places), which no index provides: the planner cannot walk the primary key backwards through every run newer than
     * the window (it assumes matching rows are spread evenly, but old windows are at the far end), and reads the
     * window through the BRIN index of scheduled_for instead, then sorts it.
     */
    private static String runOrder(RunFilter filter) {
        return filter.scheduledBefore() != null ? "r.id::text DESC" : "r.id DESC";
    }

    /** The conditions of a run filter; null when nothing can match (a job id that is not one). */
    private static Where runWhere(RunFilter filter, String after) {
        Where where = new Where();
        if (filter.jobId() != null) {
            if (!Ids.isWellFormed(filter.jobId())) {
                return null;
            }
            where.add("r.job_id = CAST(:jobId AS uuid)", "jobId", filter.jobId());
        }
        if (filter.status() != null) {
            where.add("r.status = :status", "status", filter.status().wireName());
        }
        if (filter.queue() != null) {
            where.add("r.queue = :queue", "queue", filter.queue());
            if (!filter.queue().equals(QueueNames.DEFAULT)) {
                where.add("r.queue <> 'default'"); // lets the partial index runs_queue_id_idx serve it
            }
        }
        labels(where, "r.labels", filter.labels());
        if (filter.scheduledAfter() != null) {
            where.add("r.scheduled_for > :scheduledAfter", "scheduledAfter", filter.scheduledAfter());
        }
        if (filter.scheduledBefore() != null) {
            where.add("r.scheduled_for < :scheduledBefore", "scheduledBefore", filter.scheduledBefore());
        }
        if (filter.finishedAfter() != null) {
            // only finished runs have finished_at: the condition on status lets runs_finished_idx serve it
            where.add("r.finished_at > :finishedAfter AND r.status IN ('succeeded', 'dead', 'cancelled')",
                    "finishedAfter", filter.finishedAfter());
        }
        if (after != null) {
            where.add("r.id < CAST(:after AS uuid)", "after", after);
        }
        return where;
    }

    /** Every label must match: containment ({@code @>}), on labelled rows only (the partial GIN indexes). */
    private static void labels(Where where, String column, Map<String, String> labels) {
        if (!labels.isEmpty()) {
            where.add(column + " <> '{}'::jsonb AND " + column + " @> CAST(:labels AS jsonb)", "labels",
                    PayloadJson.write(labels));
        }
    }

    /** A LIKE pattern matching strings that start with {@code prefix} ({@code \} is LIKE's escape). */
    static String likePrefix(String prefix) {
        return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }

    private static <T> List<T> read(Jdbi jdbi, String sql, Where where, int limit,
                                    java.util.function.Function<Query, List<T>> map) {
        return jdbi.inTransaction(h -> {
            customPlans(h);
            Query q = h.createQuery(sql).bind("limit", limit + 1);
            where.values.forEach(q::bind);
            return map.apply(q);
        });
    }

    /** Plans this transaction's statements for their values, never a generic plan that ignores the filter's. */
    private static void customPlans(Handle h) {
        h.execute("SET LOCAL plan_cache_mode = force_custom_plan");
    }

    /** A WHERE clause and its named values. */
    private static final class Where {
        final List<String> conditions = new ArrayList<>();
        final Map<String, Object> values = new LinkedHashMap<>();

        void add(String condition) {
            conditions.add(condition);
        }

        void add(String condition, String name, Object value) {
            conditions.add(condition);
            values.put(name, value);
        }

        @Override
        public String toString() {
            return conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions);
        }
    }
}
