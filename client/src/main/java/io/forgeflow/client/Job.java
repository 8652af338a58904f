package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

import java.time.Instant;
import java.util.Map;

/**
 * A job as the server returns it: the definition plus its read-only {@code id}, {@code status} ({@code active},
 * {@code paused}, {@code cancelled}, {@code completed}), {@code next_run_at} (null when none), and timestamps.
 * Schedule fields: {@code cron_expr} evaluated in {@code timezone}, or a one-off {@code run_at}; neither means "run now".
 * Queue fields: its {@code queue} ({@code default} unless named), the {@code concurrency_key} and {@code max_concurrent}
 * that limit how many of its runs (and those sharing the key) run at once cluster-wide, and its {@code overlap} policy
 * ({@code allow}, {@code skip}, {@code queue_one}, {@code cancel_running}). From a server that predates them, the
 * queue fields read as {@code default}, null, null and {@code allow}. {@code labels}: string to string, empty when none
 * (also from a server that predates them), in key order.
 */
public record Job(
        String id,
        String name,
        String executor,
        Map<String, Object> payload,
        String cronExpr,
        Instant runAt,
        String timezone,
        int priority,
        int maxAttempts,
        int timeoutSeconds,
        String catchUp,
        String idempotencyKey,
        String status,
        Instant nextRunAt,
        Instant createdAt,
        Instant updatedAt,
        String queue,
        String concurrencyKey,
        Integer maxConcurrent,
        String overlap,
        Map<String, String> labels) {

    public static final String ACTIVE = "active";
    public static final String PAUSED = "paused";
    public static final String CANCELLED = "cancelled";
    public static final String COMPLETED = "completed";
    /** A deleted job (a tombstone): out of the lists; its finished runs still name it until retention. */
    public static final String DELETED = "deleted";
    /** The queue of a job that names none. */
    public static final String DEFAULT_QUEUE = "default";
    /** The overlap policy of a job that gives none: every tick fires. */
    public static final String ALLOW = "allow";

    @JsonCreator
    public Job {
        queue = queue == null ? DEFAULT_QUEUE : queue;
        overlap = overlap == null ? ALLOW : overlap;
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
    }

    /** A job without labels (the fields before labels). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                Map.of());
    }

    /** A job in the default queue, without a concurrency limit, whose ticks may overlap (the fields before queues). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, DEFAULT_QUEUE, null, null, ALLOW, Map.of());
    }
}
