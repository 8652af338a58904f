package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.NodeRegistry;

import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.ScheduleControls;
import io.forgeflow.domain.job.ScheduleState;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.trace.TraceContext;
import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Jdbi;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/** Row mappers from this module's tables to domain records (and to the few row shapes its statements return). */
final class Rows {

    private Rows() {
    }

    /** A fence a statement applied, plus whether an operator asked to cancel that run. */
    record FenceRow(RunFence fence, boolean cancelRequested) {
    }

    /** A fence a worker's write applied, with the run's job and the status it moved to (for run events). */
    record AppliedFence(RunFence fence, String jobId, RunStatus status) {
    }

    /** The queue's counts per status and the age in seconds of its oldest due pending run. */
    record QueueRow(Map<RunStatus, Long> depth, double lagSeconds, long throttled, Map<String, io.forgeflow.domain.port.QueueStats.TenantLoad> tenants) {
    }

    /** A run list item of a budgeted page. */
    record BudgetedRun(ListedRun listed, int candidates) {
    }

    /** A job list item of a budgeted page. */
    record BudgetedJob(ListedJob listed, int candidates) {
    }

    /** One row of backfillProgress.sql: the backfill, and one status of its runs with their count (status null: none). */
    record BackfillRow(String id, String jobId, Instant from, Instant to, String overlap, int ticks, int created,
                       Instant createdAt, String status, long count) {
    }

    static void register(Jdbi jdbi) {
        jdbi.registerRowMapper(BackfillRow.class, (rs, ctx) -> new BackfillRow(rs.getString("id"),
                rs.getString("job_id"), instant(rs, "from_tick"), instant(rs, "to_tick"), rs.getString("overlap"),
                rs.getInt("ticks"), rs.getInt("created"), instant(rs, "created_at"), rs.getString("status"),
                rs.getLong("n")));
        jdbi.registerRowMapper(Run.class, (rs, ctx) -> run(rs));
        jdbi.registerRowMapper(ListedRun.class, (rs, ctx) -> new ListedRun(run(rs), rs.getBoolean("output_truncated")));
        jdbi.registerRowMapper(BudgetedRun.class, (rs, ctx) -> new BudgetedRun(
                new ListedRun(run(rs), rs.getBoolean("output_truncated")), rs.getInt("candidates")));
        jdbi.registerRowMapper(BudgetedJob.class, (rs, ctx) -> new BudgetedJob(
                new ListedJob(job(rs), rs.getBoolean("payload_truncated")), rs.getInt("candidates")));
        jdbi.registerRowMapper(Job.class, (rs, ctx) -> job(rs));
        jdbi.registerRowMapper(Attempt.class, (rs, ctx) -> attempt(rs));
        jdbi.registerRowMapper(NodeStatus.class, (rs, ctx) -> node(rs));
        jdbi.registerRowMapper(RunFence.class, (rs, ctx) ->
                new RunFence(rs.getString("id"), rs.getString("worker_id"), rs.getInt("attempt")));
        jdbi.registerRowMapper(QueueRow.class, (rs, ctx) -> {
            Map<RunStatus, Long> depth = new EnumMap<>(RunStatus.class);
            for (RunStatus status : RunStatus.values()) {
                depth.put(status, rs.getLong(status.wireName()));
            }
            Map<String, io.forgeflow.domain.port.QueueStats.TenantLoad> tenants = new java.util.HashMap<>();
            String live = rs.getString("tenants");
            if (live != null) {
                PayloadJson.read(live).forEach((tenant, counts) -> {
                    java.util.List<?> pair = (java.util.List<?>) counts;
                    tenants.put(tenant, new io.forgeflow.domain.port.QueueStats.TenantLoad(
                            ((Number) pair.get(0)).longValue(), ((Number) pair.get(1)).longValue()));
                });
            }
            return new QueueRow(depth, rs.getDouble("lag_seconds"), rs.getLong("throttled"), tenants);
        });
        jdbi.registerRowMapper(QueueInfo.class, (rs, ctx) -> queue(rs));
        jdbi.registerRowMapper(io.forgeflow.domain.tenant.TenantInfo.class, (rs, ctx) -> tenantInfo(rs));
        jdbi.registerRowMapper(io.forgeflow.domain.job.Notice.class, (rs, ctx) -> new io.forgeflow.domain.job.Notice(
                rs.getLong("id"), rs.getString("event"), rs.getString("job_id"), rs.getString("job_name"),
                rs.getString("url"), rs.getString("run_id"), rs.getObject("attempt", Integer.class),
                rs.getString("error"), rs.getString("note"), instant(rs, "created_at")));
    }

    static FenceRow fenceRow(ResultSet rs) throws SQLException {
        return new FenceRow(new RunFence(rs.getString("id"), rs.getString("worker_id"), rs.getInt("attempt")),
                rs.getBoolean("cancel_requested"));
    }

    static ExpiredLease expiredLease(ResultSet rs) throws SQLException {
        return new ExpiredLease(new RunFence(rs.getString("id"), rs.getString("worker_id"), rs.getInt("attempt")),
                rs.getString("job_id"), rs.getInt("max_attempts"), rs.getBoolean("cancel_requested"), retry(rs));
    }

    static AppliedFence appliedFence(ResultSet rs) throws SQLException {
        return new AppliedFence(new RunFence(rs.getString("id"), rs.getString("worker_id"), rs.getInt("attempt")),
                rs.getString("job_id"), RunStatus.fromWire(rs.getString("status")));
    }

    static Run run(ResultSet rs) throws SQLException {
        return new Run(
                rs.getString("id"),
                rs.getString("job_id"),
                RunStatus.fromWire(rs.getString("status")),
                rs.getInt("attempt"),
                rs.getInt("max_attempts"),
                rs.getInt("priority"),
                instant(rs, "scheduled_for"),
                instant(rs, "started_at"),
                instant(rs, "finished_at"),
                rs.getString("worker_id"),
                instant(rs, "lease_expires_at"),
                rs.getString("output"),
                rs.getString("error"),
                rs.getString("executor"),
                PayloadJson.read(rs.getString("payload")),
                rs.getInt("timeout_seconds"),
                rs.getBoolean("cancel_requested"),
                instant(rs, "created_at"),
                runTrace(rs), retry(rs), labels(rs), snoozes(rs), tenant(rs));
    }

    /**
     * The row's {@code tenant}; {@value io.forgeflow.domain.tenant.Tenants#DEFAULT} when the statement did not select
     * it (the worker's reads: no isolation decision is ever taken on a run read without it).
     */
    static String tenant(ResultSet rs) throws SQLException {
        int column;
        try {
            column = rs.findColumn("tenant"); // the driver's map of names; every read of a whole run selects it
        } catch (SQLException notSelected) {
            return io.forgeflow.domain.tenant.Tenants.DEFAULT;
        }
        return rs.getString(column);
    }

    /** The text column {@code name}; null when the statement did not select it. */
    static String optionalText(ResultSet rs, String name) throws SQLException {
        int column;
        try {
            column = rs.findColumn(name);
        } catch (SQLException e) {
            return null;
        }
        return rs.getString(column);
    }

    /** The {@code snoozes} column; 0 when the statement did not select it (worker reads). */
    static int snoozes(ResultSet rs) throws SQLException {
        int column;
        try {
            column = rs.findColumn("snoozes");
        } catch (SQLException e) {
            return 0;
        }
        return rs.getInt(column);
    }

    /** The run's trace context (and queue), when the query selected it and the run has one; else null. */
    private static RunTrace runTrace(ResultSet rs) throws SQLException {
        TraceContext context = trace(rs, "traceparent", "tracestate");
        TraceContext origin = trace(rs, "trace_origin", "tracestate");
        if (context == null && origin == null) {
            return null;
        }
        String queue;
        try {
            queue = rs.getString(rs.findColumn("queue"));
        } catch (SQLException notSelected) {
            queue = null;
        }
        return new RunTrace(context, origin, queue);
    }

    /** The W3C context in these columns; null when the query did not select them or they hold none. */
    static TraceContext trace(ResultSet rs, String traceparentColumn, String tracestateColumn) throws SQLException {
        int at;
        try {
            at = rs.findColumn(traceparentColumn);
        } catch (SQLException notSelected) {
            return null;
        }
        String traceparent = rs.getString(at);
        return traceparent == null ? null : TraceContext.parse(traceparent, rs.getString(tracestateColumn));
    }

    /** The row's retry policy columns (null: the node's defaults). */
    static RetryOverride retry(ResultSet rs) throws SQLException {
        return RetryOverride.of(rs.getObject("retry_base_seconds", Integer.class),
                rs.getObject("retry_max_seconds", Integer.class));
    }

    /** The {@code labels} column as a map of strings; empty when the statement did not select it (worker reads). */
    static Map<String, String> labels(ResultSet rs) throws SQLException {
        int column;
        try {
            column = rs.findColumn("labels");
        } catch (SQLException e) {
            return Map.of();
        }
        String json = rs.getString(column);
        if (json == null) {
            return Map.of();
        }
        Map<String, String> labels = new java.util.TreeMap<>();
        PayloadJson.read(json).forEach((k, v) -> labels.put(k, String.valueOf(v)));
        return labels;
    }

    static Job job(ResultSet rs) throws SQLException {
        JobSpec spec = new JobSpec(
                rs.getString("name"),
                rs.getString("executor"),
                PayloadJson.read(rs.getString("payload")),
                rs.getString("cron_expr"),
                instant(rs, "run_at"),
                rs.getString("timezone"),
                rs.getInt("priority"),
                rs.getInt("max_attempts"),
                rs.getInt("timeout_seconds"),
                CatchUp.fromWire(rs.getString("catch_up")),
                rs.getString("idempotency_key"),
                rs.getString("queue"),
                rs.getString("concurrency_key"),
                (Integer) rs.getObject("max_concurrent"),
                Overlap.fromWire(rs.getString("overlap")),
                rs.getString("unique_key"),
                retry(rs), labels(rs), controls(rs), optionalText(rs, "sequence_key"),
                optionalText(rs, "sequence_on_dead"), notices(rs), debounce(rs), throttle(rs));
        return new Job(rs.getString("id"), StoredKeys.given(spec), JobStatus.fromWire(rs.getString("status")),
                instant(rs, "next_run_at"), instant(rs, "created_at"), instant(rs, "updated_at"),
                rs.getString("submitted_via"), trace(rs, "traceparent", "tracestate"), scheduleState(rs), tenant(rs));
    }

    /** A job's debounce (issue 44): the {@code debounce} column as stored (checked); null when none or not read. */
    static io.forgeflow.domain.job.Debounce debounce(ResultSet rs) throws SQLException {
        String json = optionalText(rs, "debounce");
        if (json == null) {
            return null;
        }
        Map<String, Object> d = PayloadJson.read(json);
        return new io.forgeflow.domain.job.Debounce((String) d.get("key"), intOrNull(d.get("period_seconds")),
                intOrNull(d.get("max_wait_seconds")), (String) d.get("edge"));
    }

    /** A job's throttle (issue 44): the {@code throttle} column as stored (checked); null when none or not read. */
    static io.forgeflow.domain.job.Throttle throttle(ResultSet rs) throws SQLException {
        String json = optionalText(rs, "throttle");
        if (json == null) {
            return null;
        }
        Map<String, Object> t = PayloadJson.read(json);
        return new io.forgeflow.domain.job.Throttle((String) t.get("key"), intOrNull(t.get("count")),
                intOrNull(t.get("per_seconds")));
    }

    private static Integer intOrNull(Object v) {
        return v == null ? null : ((Number) v).intValue();
    }

    /** A job's notices (issue 45): the {@code notify} column, as stored (checked); null when none or not read. */
    @SuppressWarnings("unchecked")
    static io.forgeflow.domain.job.Notify notices(ResultSet rs) throws SQLException {
        String json = optionalText(rs, "notify");
        if (json == null) {
            return null;
        }
        Map<String, Object> notify = PayloadJson.read(json);
        return new io.forgeflow.domain.job.Notify((String) notify.get("url"),
                (java.util.List<String>) notify.get("on"));
    }

    /** A job's schedule controls (issue 45); none when the statement does not read them. */
    static ScheduleControls controls(ResultSet rs) throws SQLException {
        if (!hasColumn(rs, "jitter_seconds")) {
            return ScheduleControls.NONE;
        }
        return new ScheduleControls(instant(rs, "start_at"), instant(rs, "end_at"),
                rs.getObject("max_runs", Integer.class), rs.getInt("jitter_seconds"),
                rs.getObject("pause_after_failures", Integer.class));
    }

    /** Runs fired, the pause note and the dead streak; none when the statement does not read them. */
    static ScheduleState scheduleState(ResultSet rs) throws SQLException {
        if (!hasColumn(rs, "fired_runs")) {
            return ScheduleState.NONE;
        }
        return new ScheduleState(rs.getInt("fired_runs"), rs.getString("paused_note"), rs.getString("paused_by"),
                hasColumn(rs, "dead_streak") ? rs.getInt("dead_streak") : 0);
    }

    private static boolean hasColumn(ResultSet rs, String column) {
        try {
            rs.findColumn(column);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    static QueueInfo queue(ResultSet rs) throws SQLException {
        Integer maxRunning = (Integer) rs.getObject("max_running");
        Integer rateCount = (Integer) rs.getObject("rate_count");
        RateLimit rate = rateCount == null ? null : new RateLimit(rateCount, rs.getInt("rate_per_seconds"));
        return new QueueInfo(rs.getString("tenant"), rs.getString("name"), rs.getLong("pending"), rs.getLong("due"), rs.getLong("running"),
                java.time.Duration.ofNanos((long) (Math.max(0, rs.getDouble("lag_seconds")) * 1e9)),
                rs.getBoolean("paused"), new QueueLimits(maxRunning, rate), rs.getLong("starts_in_window"));
    }

    static io.forgeflow.domain.tenant.TenantInfo tenantInfo(ResultSet rs) throws SQLException {
        Integer rateCount = (Integer) rs.getObject("rate_count");
        RateLimit rate = rateCount == null ? null : new RateLimit(rateCount, rs.getInt("rate_per_seconds"));
        return new io.forgeflow.domain.tenant.TenantInfo(rs.getString("name"),
                new io.forgeflow.domain.tenant.TenantSettings(rs.getInt("weight"),
                        (Integer) rs.getObject("max_running"), rate),
                rs.getLong("pending"), rs.getLong("running"), rs.getLong("starts_in_window"));
    }

    static Attempt attempt(ResultSet rs) throws SQLException {
        String outcome = rs.getString("outcome");
        return new Attempt(rs.getString("run_id"), rs.getInt("attempt"), rs.getString("worker_id"),
                instant(rs, "started_at"), instant(rs, "finished_at"),
                outcome == null ? null : AttemptOutcome.fromWire(outcome), rs.getString("error"),
                rs.getObject("retry_after_seconds", Integer.class));
    }

    static NodeStatus node(ResultSet rs) throws SQLException {
        Array roles = rs.getArray("roles");
        NodeInfo info = new NodeInfo(rs.getString("worker_id"), Set.copyOf(Arrays.asList((String[]) roles.getArray())),
                rs.getString("version"), instant(rs, "started_at"), rs.getBoolean("leader"), rs.getString("containment"),
                rs.getString("job_user"), rs.getString("grpc_address"), rs.getString("database_pooling"),
                rs.getString("wake_ups"), rs.getString("leadership"), rs.getObject("leader_term", Long.class),
                rs.getObject("pool_max") == null ? null : new NodeRegistry.Connections(rs.getInt("pool_max"),
                        rs.getInt("pool_in_use"), rs.getInt("session_connections")));
        return new NodeStatus(info, instant(rs, "last_seen_at"), rs.getLong("running"), rs.getBoolean("live"));
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
