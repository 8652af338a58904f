package io.forgeflow.application.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.port.CronSchedules;

import java.time.Duration;
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
import java.util.regex.Pattern;

/**
 * Cron evaluation on cron-utils: 5-field Unix cron ({@code minute hour day-of-month month day-of-week}), 6-field
 * cron with a leading seconds field (Spring syntax), and the macros {@code @yearly @annually @monthly @weekly
 * @daily @midnight @hourly}. 5-field cron also takes the calendar days that billing needs: {@code L} (last day of the
 * month), {@code L-n}, {@code nW} (weekday nearest day n), {@code LW} (last weekday), {@code d#n} (n-th weekday d:
 * {@code 1#1} is the first Monday) and {@code dL} (last weekday d: {@code 5L} is the last Friday).
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
    /** 5-field cron plus L, L-n, nW, LW in day-of-month and d#n, dL in day-of-week (see {@link #usesCalendarDays}). */
    private final CronParser calendar = new CronParser(CronDefinitionBuilder.defineCron()
            .withMinutes().withValidRange(0, 59).withStrictRange().and()
            .withHours().withValidRange(0, 23).withStrictRange().and()
            .withDayOfMonth().withValidRange(1, 31).supportsL().supportsW().supportsLW().withStrictRange().and()
            .withMonth().withValidRange(1, 12).withStrictRange().and()
            .withDayOfWeek().withValidRange(0, 7).withMondayDoWValue(1).withIntMapping(7, 0)
            .supportsL().supportsHash().withStrictRange().and()
            .matchDayOfWeekAndDayOfMonth()
            .instance());
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
        return fireAfter(expression, zone, after).map(Fire::at);
    }

    @Override
    public Optional<Fire> fireAfter(String expression, ZoneId zone, Instant after) {
        ExecutionTime time = executionTime(expression);
        ZoneRules rules = zone.getRules();
        // cron-utils matches fields on a zone-free calendar (UTC); the daylight-saving policy is applied here
        Optional<ZonedDateTime> local = time.nextExecution(latestLocalTimeReached(rules, after).atZone(ZoneOffset.UTC));
        return local.map(l -> new Fire(firstInstantReaching(rules, l.toLocalDateTime()), l.toLocalDateTime()));
    }

    /**
     * The policy in one function: a local time fires at the first instant whose wall clock reaches it. A valid
     * local time fires at its (earliest) occurrence; a local time in a gap at the transition, the first valid
     * instant after the gap. Ticks that map to one instant fire once.
     */
    static Instant firstInstantReaching(ZoneRules rules, LocalDateTime local) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (offsets.isEmpty()) {
            return rules.getTransition(local).getInstant();
        }
        Instant first = local.toInstant(offsets.get(0));
        for (ZoneOffset offset : offsets) {
            Instant i = local.toInstant(offset);
            first = i.isBefore(first) ? i : first;
        }
        return first;
    }

    /**
     * The latest wall-clock time shown at or before {@code after}: a local time fires after {@code after} exactly
     * when it is later than this. After an overlap it stays at the last moment before the clocks went back until
     * the wall clock passes it again, so repeated local times do not fire twice.
     */
    static LocalDateTime latestLocalTimeReached(ZoneRules rules, Instant after) {
        LocalDateTime reached = LocalDateTime.ofInstant(after, rules.getOffset(after));
        Instant horizon = after.minus(Duration.ofDays(3));
        ZoneOffsetTransition t = rules.previousTransition(after.plusNanos(1));
        while (t != null && !t.getInstant().isBefore(horizon)) {
            if (t.isOverlap()) {
                LocalDateTime lastBeforeGoingBack = t.getDateTimeBefore().minusNanos(1);
                reached = lastBeforeGoingBack.isAfter(reached) ? lastBeforeGoingBack : reached;
            }
            t = rules.previousTransition(t.getInstant());
        }
        return reached;
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

    private static final Pattern DAY_OF_MONTH_CALENDAR = Pattern.compile("(?i)L|LW|L-([1-9]|[12][0-9]|30)|([1-9]|1[0-9]|2[0-7])W");
    private static final Pattern DAY_OF_WEEK_CALENDAR = Pattern.compile(
            "(?i)([0-7]|SUN|MON|TUE|WED|THU|FRI|SAT)#[1-5]|[0-7]L");
    private static final String CALENDAR_HOW = "day-of-month takes L (last day), L-n (n = 1-30 days before it), "
            + "nW (weekday nearest day n, n = 1-27; LW for the last weekday) or LW (last weekday), each alone and with day-of-week *; "
            + "day-of-week takes d#n (n-th weekday d of the month, n = 1-5, e.g. 1#1 the first Monday) or dL "
            + "(last weekday d, e.g. 5L the last Friday), alone and with day-of-month *";

    /**
     * Whether a 5-field expression uses the calendar syntax (L, L-n, nW, LW; d#n, dL); refuses malformed uses
     * such as {@code L} in a list, {@code 31W} or a calendar day combined with a restricted other day field.
     */
    static boolean usesCalendarDays(String expression, String dayOfMonth, String dayOfWeek) {
        boolean monthDay = DAY_OF_MONTH_CALENDAR.matcher(dayOfMonth).matches();
        boolean weekDay = DAY_OF_WEEK_CALENDAR.matcher(dayOfWeek).matches();
        boolean monthDayLetters = !monthDay && dayOfMonth.toUpperCase(Locale.ROOT).matches(".*[LW#].*");
        boolean weekDayLetters = !weekDay && dayOfWeek.toUpperCase(Locale.ROOT).replaceAll("SUN|MON|TUE|WED|THU|FRI|SAT", "")
                .matches(".*[LW#].*");
        boolean paired = (!monthDay || dayOfWeek.equals("*")) && (!weekDay || dayOfMonth.equals("*"));
        if (monthDayLetters || weekDayLetters || !paired) {
            throw new ValidationException("cron_expr", "cron_expr '" + expression + "' uses L, W or # wrongly: "
                    + CALENDAR_HOW);
        }
        return monthDay || weekDay;
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
        String[] parts = body.split(" ");
        int fields = parts.length;
        CronParser parser;
        if (fields == 5) {
            parser = usesCalendarDays(normalized, parts[2], parts[4]) ? calendar : unix;
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
