package io.forgeflow.domain.job;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;

/**
 * A validated job definition (see {@link JobDraft#validate()}): what to run, when, and how hard to try.
 * Two submissions with one idempotency key are the same request exactly when their specs are equal.
 */
public record JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                      String idempotencyKey) {
    public JobSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(timezone, "timezone");
        Objects.requireNonNull(catchUp, "catchUp");
        payload = payload == null ? Map.of() : payload;
    }

    /** A recurring job has a cron expression; a one-off job has none. */
    public boolean isRecurring() {
        return cronExpr != null;
    }

    public ZoneId zone() {
        return ZoneId.of(timezone);
    }
}
