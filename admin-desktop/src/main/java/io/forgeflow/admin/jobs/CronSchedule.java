package io.forgeflow.admin.jobs;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A cron expression checked as the operator types, and its next fire times, computed here because the desktop has no
 * server module. It accepts what the server accepts (API.md): 5 fields {@code minute hour day-of-month month
 * day-of-week}, 6 fields with a leading seconds field, and the macros {@code @yearly @annually @monthly @weekly @daily
 * @midnight @hourly}; each field a list of {@code *}, {@code ?}, {@code n}, {@code a-b}, with an optional {@code /step},
 * months and weekdays also by name ({@code JAN}, {@code MON}), Sunday as 0 or 7. Quartz extras of 6-field cron
 * ({@code L}, {@code W}, {@code #}) are left to the server: such an expression is {@link #previewable() not previewable}.
 *
 * <p>The server decides; this is a preview. Its DST policy is the server's: a local time in a spring-forward gap fires
 * once at the first valid instant after the gap, a local time that happens twice fires once, at its first occurrence.
 * Day-of-month and day-of-week follow Unix cron: when both are restricted, a day matching either fires.
 */
public final class CronSchedule {
    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
            "OCT", "NOV", "DEC");
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");
    /** How far ahead to look before deciding an expression never fires (the server probes 8 years). */
    private static final int HORIZON_YEARS = 8;

    private final String expression;
    private final BitSet seconds;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    private final BitSet daysOfWeek;
    private final boolean domRestricted;
    private final boolean dowRestricted;
    private final boolean previewable;

    private CronSchedule(String expression, BitSet seconds, BitSet minutes, BitSet hours, BitSet daysOfMonth,
                         BitSet months, BitSet daysOfWeek, boolean domRestricted, boolean dowRestricted,
                         boolean previewable) {
        this.expression = expression;
        this.seconds = seconds;
        this.minutes = minutes;
        this.hours = hours;
        this.daysOfMonth = daysOfMonth;
        this.months = months;
        this.daysOfWeek = daysOfWeek;
        this.domRestricted = domRestricted;
        this.dowRestricted = dowRestricted;
        this.previewable = previewable;
    }

    /**
     * Parses expression.
     *
     * @throws IllegalArgumentException with a message that says which field is wrong and how to write it
     */
    public static CronSchedule parse(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("Enter a cron expression, e.g. */5 * * * * (every 5 minutes).");
        }
        String normalized = expression.strip().replaceAll("\\s+", " ");
        String body = normalized;
        if (body.startsWith("@")) {
            body = MACROS.get(body.toLowerCase(Locale.ROOT));
            if (body == null) {
                throw new IllegalArgumentException("Unknown macro '" + normalized
                        + "': use @hourly, @daily, @weekly, @monthly or @yearly.");
            }
        }
        String[] f = body.split(" ");
        if (f.length != 5 && f.length != 6) {
            throw new IllegalArgumentException("Cron needs 5 fields (minute hour day-of-month month day-of-week) or 6 "
                    + "with leading seconds; '" + normalized + "' has " + f.length + ".");
        }
        int o = f.length - 5;
        boolean quartz = false;
        for (String field : f) {
            for (String part : field.split(",")) {
                quartz |= f.length == 6 && isQuartzToken(part);
            }
        }
        if (quartz) {
            // L, W and # are the server's to judge; fields without them are still checked
            return new CronSchedule(normalized, null, null, null, null, null, null, true, true, false);
        }
        BitSet seconds = o == 1 ? field(f[0], "second", 0, 59, List.of(), false) : bits(0);
        BitSet minutes = field(f[o], "minute", 0, 59, List.of(), false);
        BitSet hours = field(f[o + 1], "hour", 0, 23, List.of(), false);
        BitSet dom = field(f[o + 2], "day-of-month", 1, 31, List.of(), true);
        BitSet month = field(f[o + 3], "month", 1, 12, MONTHS, false);
        BitSet dow = field(f[o + 4], "day-of-week", 0, 7, DAYS, true);
        if (dow.get(7)) {
            dow.set(0);
            dow.clear(7);
        }
        CronSchedule schedule = new CronSchedule(normalized, seconds, minutes, hours, dom, month, dow,
                !isAny(f[o + 2]), !isAny(f[o + 4]), true);
        if (schedule.nextLocal(LocalDateTime.of(2026, 1, 1, 0, 0)) == null) {
            throw new IllegalArgumentException("'" + normalized + "' never fires: check the day and month fields "
                    + "(February has no 30th).");
        }
        return schedule;
    }

    /** The expression as written, whitespace normalized. */
    public String expression() {
        return expression;
    }

    /** False for 6-field Quartz forms (L, W, #) this preview does not evaluate; the server still checks them. */
    public boolean previewable() {
        return previewable;
    }

    /** The next count fire times strictly after after, in zone; empty when not previewable. */
    public List<Instant> next(int count, Instant after, ZoneId zone) {
        List<Instant> fires = new ArrayList<>();
        if (!previewable) {
            return fires;
        }
        ZoneRules rules = zone.getRules();
        Instant last = after;
        LocalDateTime cursor = LocalDateTime.ofInstant(after, zone);
        while (fires.size() < count) {
            LocalDateTime local = nextLocal(cursor);
            if (local == null) {
                break;
            }
            cursor = local;
            Instant fire = toInstant(local, rules);
            if (fire.isAfter(last)) {
                fires.add(fire);
                last = fire;
            }
        }
        return fires;
    }

    /** A gap time fires at the gap's end; an overlap time at its first (earlier-offset) occurrence. */
    private static Instant toInstant(LocalDateTime local, ZoneRules rules) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (offsets.isEmpty()) {
            ZoneOffsetTransition gap = rules.getTransition(local);
            return gap.getInstant();
        }
        return local.toInstant(offsets.get(0));
    }

    /** The first local time strictly after from that matches, within the horizon; null when none. */
    private LocalDateTime nextLocal(LocalDateTime from) {
        LocalDateTime t = from.withNano(0).plusSeconds(1);
        LocalDate horizon = from.toLocalDate().plusYears(HORIZON_YEARS);
        while (t.toLocalDate().isBefore(horizon)) {
            if (!months.get(t.getMonthValue())) {
                t = t.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay();
            } else if (!dayMatches(t.toLocalDate())) {
                t = t.toLocalDate().plusDays(1).atStartOfDay();
            } else if (!hours.get(t.getHour())) {
                t = t.withMinute(0).withSecond(0).plusHours(1);
            } else if (!minutes.get(t.getMinute())) {
                t = t.withSecond(0).plusMinutes(1);
            } else if (!seconds.get(t.getSecond())) {
                int next = seconds.nextSetBit(t.getSecond());
                t = next < 0 ? t.withSecond(0).plusMinutes(1) : t.withSecond(next);
            } else {
                return t;
            }
        }
        return null;
    }

    private boolean dayMatches(LocalDate date) {
        boolean dom = daysOfMonth.get(date.getDayOfMonth());
        boolean dow = daysOfWeek.get(date.getDayOfWeek().getValue() % 7);
        if (domRestricted && dowRestricted) {
            return dom || dow;
        }
        return dom && dow;
    }

    /** L, LW, L-3, 15W (day of month), 5L, FRIL, 6#3 (day of week): Quartz forms of 6-field cron. */
    private static boolean isQuartzToken(String part) {
        String p = part.toUpperCase(Locale.ROOT);
        return p.equals("L") || p.equals("LW") || p.matches("L-\\d+") || p.matches("\\d+W") || p.matches("[0-7]L")
                || p.matches("[A-Z]{3}L") || p.contains("#");
    }

    private static boolean isAny(String field) {
        return field.equals("*") || field.equals("?");
    }

    private static BitSet bits(int value) {
        BitSet b = new BitSet();
        b.set(value);
        return b;
    }

    private static BitSet field(String text, String name, int min, int max, List<String> names, boolean questionOk) {
        BitSet set = new BitSet();
        for (String part : text.split(",", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException("The " + name + " field '" + text + "' has an empty list item.");
            }
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), name, part, List.of());
                if (step < 1) {
                    throw new IllegalArgumentException("The " + name + " field '" + part + "' has a step below 1.");
                }
            }
            int from;
            int to;
            if (range.equals("*") || (range.equals("?") && questionOk)) {
                from = min;
                to = max;
            } else if (range.equals("?")) {
                throw new IllegalArgumentException("'?' is allowed only in the day-of-month and day-of-week fields.");
            } else if (range.indexOf('-') > 0) {
                int dash = range.indexOf('-');
                from = number(range.substring(0, dash), name, part, names);
                to = number(range.substring(dash + 1), name, part, names);
            } else {
                from = number(range, name, part, names);
                to = slash >= 0 ? max : from;
            }
            if (from < min || to > max || from > max || to < min) {
                throw new IllegalArgumentException("The " + name + " field '" + part + "' is out of range: use "
                        + min + "-" + max + (names.isEmpty() ? "" : " or " + names.get(0) + "-" + names.get(names.size() - 1))
                        + ".");
            }
            if (from > to) {
                throw new IllegalArgumentException("The " + name + " field '" + part + "' runs backwards: write the "
                        + "smaller value first.");
            }
            for (int v = from; v <= to; v += step) {
                set.set(v);
            }
        }
        return set;
    }

    private static int number(String text, String name, String part, List<String> names) {
        int index = names.indexOf(text.toUpperCase(Locale.ROOT));
        if (index >= 0) {
            return index + (name.equals("month") ? 1 : 0);
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("The " + name + " field '" + part + "' is not a number"
                    + (names.isEmpty() ? "" : " or a name such as " + names.get(0)) + ".");
        }
    }

    @Override
    public String toString() {
        return expression;
    }
}
