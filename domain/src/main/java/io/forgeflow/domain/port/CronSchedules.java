package io.forgeflow.domain.port;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Objects;
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

    /**
     * As {@link #nextAfter}, with the local time the expression named: it differs from the fire's wall-clock time
     * when that local time fell in a gap. Implementations that cannot tell return the fire's own local time.
     */
    default Optional<Fire> fireAfter(String expression, ZoneId zone, Instant after) {
        return nextAfter(expression, zone, after).map(at -> new Fire(at, LocalDateTime.ofInstant(at, zone)));
    }

    /** One fire: the instant, and the local time the expression scheduled (in a gap, not the wall clock's). */
    record Fire(Instant at, LocalDateTime scheduled) {
        public Fire {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(scheduled, "scheduled");
        }
    }
}
