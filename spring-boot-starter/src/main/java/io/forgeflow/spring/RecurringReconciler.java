package io.forgeflow.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes the recurring jobs in the database match the ones the application declares, in one transaction under an
 * advisory lock per owner: each declared job is upserted on its key {@code recurring:<owner>:<name>} (the
 * {@code jobs.idempotency_key}, unique), so replicas starting at once make one job; the owner's other recurring jobs
 * are paused. A job an operator paused stays paused; one paused here because its declaration was gone becomes
 * active again when it comes back.
 */
public final class RecurringReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(RecurringReconciler.class);
    static final String OWNER_LABEL = "recurring.owner";
    static final String NAME_LABEL = "recurring.name";
    static final String REMOVED_LABEL = "recurring.removed";

    private static final String UPSERT = "INSERT INTO %1$s.jobs AS j (id, name, executor, payload, cron_expr, run_at, "
            + "timezone, priority, max_attempts, timeout_seconds, catch_up, idempotency_key, status, next_run_at, "
            + "created_at, updated_at, queue, overlap, submitted_via, labels) "
            + "VALUES (%1$s.forgeflow_uuid_v7(), ?, 'java', CAST(? AS jsonb), ?, NULL, ?, ?, ?, ?, ?, ?, 'active', ?, "
            + "now(), now(), ?, ?, 'sql', CAST(? AS jsonb)) "
            + "ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO UPDATE SET name = EXCLUDED.name, "
            + "executor = EXCLUDED.executor, "
            + "payload = EXCLUDED.payload, cron_expr = EXCLUDED.cron_expr, run_at = NULL, timezone = EXCLUDED.timezone, "
            + "priority = EXCLUDED.priority, max_attempts = EXCLUDED.max_attempts, "
            + "timeout_seconds = EXCLUDED.timeout_seconds, catch_up = EXCLUDED.catch_up, queue = EXCLUDED.queue, "
            + "overlap = EXCLUDED.overlap, labels = EXCLUDED.labels, "
            + "status = CASE WHEN j.status = 'paused' AND j.labels ->> '" + REMOVED_LABEL + "' IS NULL THEN 'paused' "
            + "ELSE 'active' END, "
            + "next_run_at = CASE WHEN j.status <> 'active' OR j.cron_expr IS DISTINCT FROM EXCLUDED.cron_expr "
            + "OR j.timezone <> EXCLUDED.timezone THEN EXCLUDED.next_run_at ELSE j.next_run_at END, "
            + "updated_at = CASE WHEN (j.name, j.payload, j.cron_expr, j.timezone, j.priority, j.max_attempts, "
            + "j.timeout_seconds, j.catch_up, j.queue, j.overlap, j.labels, j.status) IS NOT DISTINCT FROM "
            + "(EXCLUDED.name, EXCLUDED.payload, EXCLUDED.cron_expr, EXCLUDED.timezone, EXCLUDED.priority, "
            + "EXCLUDED.max_attempts, EXCLUDED.timeout_seconds, EXCLUDED.catch_up, EXCLUDED.queue, EXCLUDED.overlap, "
            + "EXCLUDED.labels, 'active') THEN j.updated_at ELSE now() END "
            + "RETURNING (xmax = 0), j.updated_at = now()";
    private static final String PAUSE_REMOVED = "UPDATE %1$s.jobs SET status = 'paused', "
            + "labels = labels || jsonb_build_object('" + REMOVED_LABEL + "', 'true'), updated_at = now() "
            + "WHERE idempotency_key IS NOT NULL AND left(idempotency_key, ?) = ? AND status = 'active' "
            + "AND cron_expr IS NOT NULL AND NOT (idempotency_key = ANY (?))";

    private final DataSource dataSource;
    private final String schema;
    private final String owner;
    private final ObjectMapper mapper;
    private final CronUtilsSchedules cron = new CronUtilsSchedules();

    /** What one reconciliation did. */
    public record Result(int created, int updated, int unchanged, int paused) {
    }

    public RecurringReconciler(DataSource dataSource, String schema, String owner, ObjectMapper mapper) {
        if (owner == null || !owner.matches("[A-Za-z0-9._-]{1,60}")) {
            throw new IllegalArgumentException("forgeflow.recurring-owner must be 1 to 60 letters, digits, '.', '_' or "
                    + "'-' (default: spring.application.name), was '" + owner + "'");
        }
        this.dataSource = dataSource;
        this.schema = schema;
        this.owner = owner;
        this.mapper = mapper;
    }

    /** The key of a recurring job of this owner in {@code jobs.idempotency_key}. */
    String keyOf(String name) {
        return prefix() + name;
    }

    private String prefix() {
        return "recurring:" + owner + ":";
    }

    public Result reconcile(List<RecurringDefinition> declared) {
        List<Prepared> jobs = new ArrayList<>();
        for (RecurringDefinition d : declared) {
            jobs.add(prepare(d));
        }
        int created = 0;
        int updated = 0;
        int unchanged = 0;
        int paused;
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
                    lock.setString(1, "forgeflow." + prefix());
                    lock.execute();
                }
                try (PreparedStatement upsert = c.prepareStatement(String.format(UPSERT, schema))) {
                    for (Prepared p : jobs) {
                        RecurringDefinition d = p.definition;
                        upsert.setString(1, d.name());
                        upsert.setString(2, p.payload);
                        upsert.setString(3, d.cron());
                        upsert.setString(4, d.zone());
                        upsert.setInt(5, d.priority());
                        upsert.setInt(6, d.maxAttempts());
                        upsert.setInt(7, d.timeoutSeconds());
                        upsert.setString(8, d.catchUp());
                        upsert.setString(9, keyOf(d.name()));
                        upsert.setTimestamp(10, Timestamp.from(p.nextRunAt));
                        upsert.setString(11, d.queue());
                        upsert.setString(12, d.overlap());
                        upsert.setString(13, p.labels);
                        try (ResultSet rs = upsert.executeQuery()) {
                            rs.next();
                            if (rs.getBoolean(1)) {
                                created++;
                            } else if (rs.getBoolean(2)) {
                                updated++;
                            } else {
                                unchanged++;
                            }
                        }
                    }
                }
                try (PreparedStatement pause = c.prepareStatement(String.format(PAUSE_REMOVED, schema))) {
                    Array keys = c.createArrayOf("text", jobs.stream().map(p -> keyOf(p.definition.name())).toArray());
                    pause.setInt(1, prefix().length());
                    pause.setString(2, prefix());
                    pause.setArray(3, keys);
                    paused = pause.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new ForgeFlowException("reconciling the recurring jobs of '" + owner + "' failed: " + e.getMessage(), e);
        }
        Result result = new Result(created, updated, unchanged, paused);
        LOG.info("recurring jobs of '{}': {} created, {} updated, {} unchanged, {} paused (no longer declared)", owner,
                created, updated, unchanged, paused);
        return result;
    }

    private record Prepared(RecurringDefinition definition, String payload, String labels, Instant nextRunAt) {
    }

    private Prepared prepare(RecurringDefinition d) {
        String where = "@Recurring(name = \"" + d.name() + "\") on " + d.declaredOn();
        if (d.name() == null || d.name().isBlank() || d.name().length() > 150) {
            throw new IllegalStateException(where + ": name must be 1 to 150 characters");
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(d.zone());
        } catch (DateTimeException e) {
            throw new IllegalStateException(where + ": zone '" + d.zone() + "' is not a time zone; use an IANA name "
                    + "such as \"Europe/Paris\" or \"UTC\"", e);
        }
        Instant next;
        try {
            cron.validate(d.cron());
            next = cron.nextAfter(d.cron(), zone, Instant.now()).orElseThrow(() ->
                    new IllegalArgumentException("cron '" + d.cron() + "' never fires again"));
        } catch (RuntimeException e) {
            throw new IllegalStateException(where + ": " + e.getMessage(), e);
        }
        checkRange(where, "priority", d.priority(), 1, 9);
        checkRange(where, "maxAttempts", d.maxAttempts(), 1, 100);
        checkRange(where, "timeoutSeconds", d.timeoutSeconds(), 1, 86400);
        JsonNode args;
        try {
            args = mapper.readTree(d.argsJson());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(where + ": args must be a JSON object such as {\"region\": \"eu\"}: "
                    + e.getOriginalMessage(), e);
        }
        if (args == null || !args.isObject()) {
            throw new IllegalStateException(where + ": args must be a JSON object such as {\"region\": \"eu\"}");
        }
        ObjectNode payload = mapper.createObjectNode();
        payload.put("handler", d.handler());
        payload.set("args", args);
        try {
            return new Prepared(d, mapper.writeValueAsString(payload),
                    mapper.writeValueAsString(Map.of(OWNER_LABEL, owner, NAME_LABEL, d.name())), next);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(where + ": " + e.getOriginalMessage(), e);
        }
    }

    private static void checkRange(String where, String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalStateException(where + ": " + field + " must be between " + min + " and " + max
                    + ", was " + value);
        }
    }
}
