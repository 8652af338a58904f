package io.forgeflow.client;

import java.time.Instant;
import java.util.Map;

/**
 * A job as the server returns it: the definition plus its read-only {@code id}, {@code status} ({@code active},
 * {@code paused}, {@code cancelled}, {@code completed}), {@code next_run_at} (null when none), and timestamps.
 * Schedule fields: {@code cron_expr} evaluated in {@code timezone}, or a one-off {@code run_at}; neither means "run now".
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
        Instant updatedAt) {

    public static final String ACTIVE = "active";
    public static final String PAUSED = "paused";
    public static final String CANCELLED = "cancelled";
    public static final String COMPLETED = "completed";
}
