package io.forgeflow.domain.port;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/** Evaluates cron expressions (5-field Unix, 6-field with seconds, and macros such as @daily). */
public interface CronSchedules {

    /** Throws a {@code ValidationException} for field {@code cron_expr} saying what is wrong and how to fix it. */
    void validate(String expression);

    /**
     * The first fire time strictly after {@code after}, evaluated in {@code zone}. A local time that falls in a
     * daylight-saving gap fires once at the first valid instant after the gap; a local time repeated by an
     * overlap fires once, at its first occurrence. Empty when the expression never fires again.
     */
    Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after);
}
