package io.forgeflow.application.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.port.CronSchedules;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cron evaluation on cron-utils: 5-field Unix cron ({@code minute hour day-of-month month day-of-week}), 6-field
 * cron with a leading seconds field (Spring syntax), and the macros {@code @yearly @annually @monthly @weekly
 * @daily @midnight @hourly}.
 *
 * <p>Daylight saving, decided here rather than left to the library: a local time that does not exist (a
 * spring-forward gap) fires once, at the first valid instant after the gap; a local time that happens twice (an
 * autumn overlap) fires once, at its first occurrence. So the fire times of any expression are strictly
 * increasing and never contain one local time twice.
 */
public final class CronUtilsSchedules implements CronSchedules {

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private static final String HOW = "use 5 fields (minute hour day-of-month month day-of-week) such as "
            + "\"*/5 * * * *\", 6 fields with a leading seconds field such as \"0 */5 * * * *\", "
            + "or a macro: @hourly, @daily, @weekly, @monthly, @yearly";

    private final CronParser unix = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private final CronParser withSeconds = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
    private final Map<String, ExecutionTime> cache = new ConcurrentHashMap<>();

    @Override
    public void validate(String expression) {
        ExecutionTime time = executionTime(expression);
        ZonedDateTime probe = ZonedDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
        // an expression such as "0 0 30 2 *" parses but never fires
        boolean fires = false;
        for (int year = 0; year < 8 && !fires; year++) {
            fires = time.nextExecution(probe.plusYears(year)).isPresent();
        }
        if (!fires) {
            throw new ValidationException("cron_expr", "cron_expr '" + expression + "' never fires (check the day and "
                    + "month fields, e.g. February has no 30th)");
        }
    }

    @Override
    public Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after) {
        ExecutionTime time = executionTime(expression);
        ZoneRules rules = zone.getRules();
        Instant cursor = after;
        for (int guard = 0; guard < 10_000; guard++) {
            Optional<ZonedDateTime> candidate = time.nextExecution(cursor.atZone(zone));
            Optional<Instant> gapFire = firstGapFire(time, rules, cursor,
                    candidate.map(ZonedDateTime::toInstant).orElse(cursor.plusSeconds(366L * 24 * 3600 * 2)));
            if (gapFire.isPresent()) {
                return gapFire;
            }
            if (candidate.isEmpty()) {
                return Optional.empty();
            }
            ZonedDateTime c = candidate.get();
            if (!c.toInstant().isAfter(cursor)) {
                // defensive: the library must move forward
                cursor = cursor.plusSeconds(1);
                continue;
            }
            if (isSecondOccurrence(rules, c)) {
                cursor = c.toInstant();
                continue;
            }
            return Optional.of(c.toInstant());
        }
        return Optional.empty();
    }

    /**
     * When a spring-forward gap lies in (after, until) and the expression matches a local time inside it, the
     * transition instant (the first valid local time after the gap), which fires in place of the skipped ticks.
     */
    private static Optional<Instant> firstGapFire(ExecutionTime time, ZoneRules rules, Instant after, Instant until) {
        ZoneOffsetTransition t = rules.nextTransition(after);
        while (t != null && t.getInstant().isBefore(until)) {
            if (t.isGap()) {
                LocalDateTime gapStart = t.getDateTimeBefore();
                LocalDateTime gapEnd = t.getDateTimeAfter();
                ZoneOffset before = t.getOffsetBefore();
                // evaluate the expression on a clock that pretends the gap exists
                Optional<ZonedDateTime> inGap = time.nextExecution(gapStart.minusNanos(1).atZone(before));
                if (inGap.isPresent() && inGap.get().toLocalDateTime().isBefore(gapEnd)) {
                    return Optional.of(t.getInstant());
                }
            }
            t = rules.nextTransition(t.getInstant());
        }
        return Optional.empty();
    }

    /** Whether c is the later of two instants that share its local time (the repeat in an overlap). */
    private static boolean isSecondOccurrence(ZoneRules rules, ZonedDateTime c) {
        List<ZoneOffset> offsets = rules.getValidOffsets(c.toLocalDateTime());
        return offsets.size() == 2 && c.getOffset().equals(offsets.get(1));
    }

    private ExecutionTime executionTime(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new ValidationException("cron_expr", "cron_expr must not be empty: " + HOW);
        }
        String normalized = expression.trim().replaceAll("\\s+", " ");
        ExecutionTime cached = cache.get(normalized);
        if (cached != null) {
            return cached;
        }
        ExecutionTime parsed = ExecutionTime.forCron(parse(normalized));
        if (cache.size() < 10_000) {
            cache.put(normalized, parsed);
        }
        return parsed;
    }

    private Cron parse(String normalized) {
        String body = normalized;
        if (body.startsWith("@")) {
            String macro = MACROS.get(body.toLowerCase(Locale.ROOT));
            if (macro == null) {
                throw new ValidationException("cron_expr", "cron_expr macro '" + body + "' is unknown: " + HOW);
            }
            body = macro;
        }
        int fields = body.split(" ").length;
        CronParser parser;
        if (fields == 5) {
            parser = unix;
        } else if (fields == 6) {
            parser = withSeconds;
        } else {
            throw new ValidationException("cron_expr", "cron_expr '" + normalized + "' has " + fields + " fields: " + HOW);
        }
        try {
            return parser.parse(body).validate();
        } catch (IllegalArgumentException e) {
            throw new ValidationException("cron_expr", "cron_expr '" + normalized + "' is not valid ("
                    + e.getMessage() + "): " + HOW);
        }
    }
}
