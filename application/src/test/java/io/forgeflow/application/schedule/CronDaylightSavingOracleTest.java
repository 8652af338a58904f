package io.forgeflow.application.schedule;

import org.junit.jupiter.api.Test;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compares {@link CronUtilsSchedules} with an oracle written from the daylight-saving policy alone: the oracle
 * parses the five fields itself, enumerates the matching local times of each day and maps each to an instant with
 * {@code java.time} (a local time in a gap fires at the transition, the first valid instant after the gap; a local
 * time that happens twice fires at its earlier occurrence). Every JDK zone with a transition in 2026-2030, every
 * transition, several start points on each transition's day.
 */
class CronDaylightSavingOracleTest {

    static final String[] EXPRESSIONS = {
            "0 0 * * *", "30 0 * * *", "0 1 * * *", "30 1 * * *", "0 2 * * *", "30 2 * * *", "45 2 * * *",
            "0 3 * * *", "0 23 * * *", "59 23 * * *", "0 * * * *", "30 * * * *", "*/15 * * * *", "0 0 * * 0",
            "0 0 * * 6", "0 0 1 * *", "0 0,12 1 */2 *", "0 9 * * 1-5", "15 1,2,3 * * *", "0 0-3 * * *",
            "*/20 0-4 * * 0,6", "5 4 * * 0", "0 12 * * *",
            // calendar days
            "0 0 L * *", "30 2 L-1 * *", "0 0 15W * *", "0 1 LW * *", "0 0 * * 5L", "0 0 * * 0#1", "30 2 * * 0#2",
            "0 0 * * 0L", "0 0 * * 6#1"};

    final CronUtilsSchedules cron = new CronUtilsSchedules();

    @Test
    void everyZoneEveryTransitionAgreesWithThePolicyOracle() {
        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        Instant until = Instant.parse("2031-01-01T00:00:00Z");
        List<String> mismatches = new ArrayList<>();
        int zones = 0;
        int transitions = 0;
        long comparisons = 0;
        int failures = 0;
        List<Oracle> oracles = new ArrayList<>();
        for (String expr : EXPRESSIONS) {
            oracles.add(new Oracle(expr));
        }
        // zone ids with equal rules (aliases such as US/Eastern) are one function of time: each is checked once
        Map<ZoneRules, String> distinct = new LinkedHashMap<>();
        for (String zoneId : new TreeSet<>(ZoneId.getAvailableZoneIds())) {
            ZoneRules rules = ZoneId.of(zoneId).getRules();
            ZoneOffsetTransition first = rules.nextTransition(from);
            if (first != null && first.getInstant().isBefore(until)) {
                zones++;
                distinct.putIfAbsent(rules, zoneId);
            }
        }
        for (String zoneId : distinct.values()) {
            ZoneId zone = ZoneId.of(zoneId);
            ZoneRules rules = zone.getRules();
            ZoneOffsetTransition t = rules.nextTransition(from);
            for (; t != null && t.getInstant().isBefore(until); t = rules.nextTransition(t.getInstant())) {
                transitions++;
                List<Instant> starts = startPoints(zone, t);
                LocalDate day = t.getDateTimeBefore().toLocalDate();
                for (Oracle oracle : oracles) {
                    TreeSet<Instant> fires = oracle.fires(zone, day.minusDays(1), day.plusDays(3));
                    Instant covered = day.plusDays(3).atStartOfDay(zone).toInstant();
                    for (Instant start : starts) {
                        comparisons++;
                        Instant near = fires.higher(start);
                        Optional<Instant> expected = near != null && near.isBefore(covered)
                                ? Optional.of(near) : oracle.next(zone, start);
                        Optional<Instant> actual = cron.nextAfter(oracle.expr, zone, start);
                        if (!expected.equals(actual) && ++failures <= 40) {
                            mismatches.add(String.format("%s in %s (transition %s, %s -> %s) after %s: expected %s, was %s",
                                    oracle.expr, zoneId, t.getInstant(), t.getDateTimeBefore(), t.getDateTimeAfter(),
                                    start, expected.map(Instant::toString).orElse("none"),
                                    actual.map(Instant::toString).orElse("none")));
                        }
                    }
                }
            }
        }
        assertThat(zones).as("zones with a transition in 2026-2030").isGreaterThan(50);
        assertThat(comparisons).isGreaterThan(100_000);
        assertThat(distinct.size()).as("distinct rules").isGreaterThan(50);
        assertThat(mismatches).as("%d zones (%d distinct rules), %d transitions, %d comparisons, %d mismatches (the first 40 listed)",
                zones, distinct.size(), transitions, comparisons, failures).isEmpty();
    }

    @Test
    void calendarDaysAgreeWithTheOracleEveryMonthOfFiveYears() {
        String[] calendar = {"0 0 L * *", "0 0 L-1 * *", "0 0 L-3 * *", "0 0 L-30 * *", "0 0 1W * *", "0 0 15W * *",
                "0 0 27W * *", "0 0 LW * *", "0 0 * * 1#1", "0 0 * * 0#5", "0 0 * * MON#2", "0 0 * * 7#1",
                "0 0 * * 5L", "0 0 * * 0L", "0 0 * * 7L", "0 9 L 2 *", "0 0 LW 2 *", "30 2 * * 0#2"};
        List<String> mismatches = new ArrayList<>();
        for (String zoneId : new String[]{"UTC", "America/New_York", "America/Havana", "Australia/Lord_Howe"}) {
            ZoneId zone = ZoneId.of(zoneId);
            for (String expr : calendar) {
                Oracle oracle = new Oracle(expr.replace("MON", "1"));
                Instant t = Instant.parse("2026-01-01T00:00:00Z");
                Instant end = Instant.parse("2031-01-01T00:00:00Z");
                while (t.isBefore(end)) {
                    Optional<Instant> expected = oracle.next(zone, t);
                    Optional<Instant> actual = cron.nextAfter(expr, zone, t);
                    if (!expected.equals(actual)) {
                        mismatches.add(expr + " in " + zoneId + " after " + t + ": expected " + expected + ", was " + actual);
                        break;
                    }
                    t = actual.orElse(end);
                }
            }
        }
        assertThat(mismatches).isEmpty();
    }

    /** Start points around a transition: the day's local midnight, moments just before, at and after it, and each hour of its day. */
    static List<Instant> startPoints(ZoneId zone, ZoneOffsetTransition t) {
        Instant at = t.getInstant();
        List<Instant> starts = new ArrayList<>(List.of(at, at.minusSeconds(1), at.minusNanos(1), at.plusSeconds(1),
                at.minusSeconds(1800), at.plusSeconds(1800), at.minusSeconds(3 * 3600), at.plusSeconds(2 * 3600)));
        LocalDate day = t.getDateTimeBefore().toLocalDate();
        starts.add(day.atStartOfDay(zone).toInstant());
        starts.add(day.minusDays(1).atStartOfDay(zone).toInstant().plusSeconds(12 * 3600));
        starts.add(t.getDateTimeAfter().toLocalDate().atStartOfDay(zone).toInstant().minusSeconds(1));
        Instant dayStart = day.atStartOfDay(zone).toInstant();
        for (int hour = 1; hour < 24; hour += 4) {
            starts.add(dayStart.plusSeconds(hour * 3600L + 17 * 60));
        }
        return starts;
    }

    /** 5-field cron from the policy: numbers, lists, ranges, steps and '*'; day-of-week 0-7 (0 and 7 are Sunday). */
    static final class Oracle {
        final String expr;
        final BitSet minutes;
        final BitSet hours;
        final BitSet daysOfMonth;
        final BitSet months;
        final BitSet daysOfWeek;
        final boolean domRestricted;
        final boolean dowRestricted;

        final String dayOfMonthText;
        final String dayOfWeekText;

        Oracle(String expr) {
            this.expr = expr;
            String[] f = expr.split(" ");
            minutes = field(f[0], 0, 59);
            hours = field(f[1], 0, 23);
            months = field(f[3], 1, 12);
            dayOfMonthText = f[2];
            dayOfWeekText = f[4];
            daysOfMonth = f[2].matches(".*[LW].*") ? new BitSet() : field(f[2], 1, 31);
            daysOfWeek = f[4].matches(".*[L#].*") ? new BitSet() : field(f[4], 0, 7);
            if (daysOfWeek.get(7)) {
                daysOfWeek.set(0);
            }
            domRestricted = !f[2].equals("*");
            dowRestricted = !f[4].equals("*");
        }

        static BitSet field(String text, int min, int max) {
            BitSet set = new BitSet();
            for (String part : text.split(",")) {
                int step = 1;
                String range = part;
                int slash = part.indexOf('/');
                if (slash >= 0) {
                    step = Integer.parseInt(part.substring(slash + 1));
                    range = part.substring(0, slash);
                }
                int lo;
                int hi;
                if (range.equals("*")) {
                    lo = min;
                    hi = max;
                } else if (range.contains("-")) {
                    lo = Integer.parseInt(range.substring(0, range.indexOf('-')));
                    hi = Integer.parseInt(range.substring(range.indexOf('-') + 1));
                } else {
                    lo = Integer.parseInt(range);
                    hi = slash >= 0 ? max : lo;
                }
                for (int v = lo; v <= hi; v += step) {
                    set.set(v);
                }
            }
            return set;
        }

        boolean matchesDay(LocalDate d) {
            if (!months.get(d.getMonthValue())) {
                return false;
            }
            boolean dom = calendarDayOfMonth(d).orElseGet(() -> daysOfMonth.get(d.getDayOfMonth()));
            boolean dow = calendarDayOfWeek(d).orElseGet(() -> daysOfWeek.get(unixDayOfWeek(d)));
            if (domRestricted && dowRestricted) {
                return dom || dow;
            }
            return dom && dow;
        }

        static int unixDayOfWeek(LocalDate d) {
            return d.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : d.getDayOfWeek().getValue();
        }

        static boolean weekend(LocalDate d) {
            return d.getDayOfWeek() == DayOfWeek.SATURDAY || d.getDayOfWeek() == DayOfWeek.SUNDAY;
        }

        /** L, L-n, LW and nW read from their definitions, empty for the plain syntax. */
        Optional<Boolean> calendarDayOfMonth(LocalDate d) {
            int length = d.lengthOfMonth();
            String text = dayOfMonthText;
            if (text.equals("L")) {
                return Optional.of(d.getDayOfMonth() == length);
            }
            if (text.startsWith("L-")) {
                return Optional.of(d.getDayOfMonth() == length - Integer.parseInt(text.substring(2)));
            }
            if (text.equals("LW")) {
                LocalDate last = d.withDayOfMonth(length);
                while (weekend(last)) {
                    last = last.minusDays(1);
                }
                return Optional.of(d.equals(last));
            }
            if (text.endsWith("W")) {
                // the weekday nearest day n, without leaving the month
                LocalDate target = d.withDayOfMonth(Integer.parseInt(text.substring(0, text.length() - 1)));
                if (target.getDayOfWeek() == DayOfWeek.SATURDAY) {
                    target = target.getDayOfMonth() == 1 ? target.plusDays(2) : target.minusDays(1);
                } else if (target.getDayOfWeek() == DayOfWeek.SUNDAY) {
                    target = target.getDayOfMonth() == length ? target.minusDays(2) : target.plusDays(1);
                }
                return Optional.of(d.equals(target));
            }
            return Optional.empty();
        }

        /** d#n and dL read from their definitions, empty for the plain syntax. */
        Optional<Boolean> calendarDayOfWeek(LocalDate d) {
            String text = dayOfWeekText;
            if (text.contains("#")) {
                int day = Integer.parseInt(text.substring(0, text.indexOf('#'))) % 7;
                int nth = Integer.parseInt(text.substring(text.indexOf('#') + 1));
                return Optional.of(unixDayOfWeek(d) == day && (d.getDayOfMonth() - 1) / 7 + 1 == nth);
            }
            if (text.endsWith("L")) {
                int day = Integer.parseInt(text.substring(0, text.length() - 1)) % 7;
                return Optional.of(unixDayOfWeek(d) == day && d.getDayOfMonth() + 7 > d.lengthOfMonth());
            }
            return Optional.empty();
        }

        /** The policy: a valid local time fires at its earliest instant; a local time in a gap at the transition. */
        static Instant instantOf(LocalDateTime local, ZoneRules rules) {
            List<ZoneOffset> offsets = rules.getValidOffsets(local);
            if (offsets.isEmpty()) {
                return rules.getTransition(local).getInstant();
            }
            Instant earliest = null;
            for (ZoneOffset offset : offsets) {
                Instant i = local.toInstant(offset);
                if (earliest == null || i.isBefore(earliest)) {
                    earliest = i;
                }
            }
            return earliest;
        }

        /** Every fire instant of the local days from {@code first} to {@code last}. */
        TreeSet<Instant> fires(ZoneId zone, LocalDate first, LocalDate last) {
            ZoneRules rules = zone.getRules();
            TreeSet<Instant> fires = new TreeSet<>();
            for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
                if (matchesDay(d)) {
                    for (int h = hours.nextSetBit(0); h >= 0; h = hours.nextSetBit(h + 1)) {
                        for (int m = minutes.nextSetBit(0); m >= 0; m = minutes.nextSetBit(m + 1)) {
                            fires.add(instantOf(d.atTime(LocalTime.of(h, m)), rules));
                        }
                    }
                }
            }
            return fires;
        }

        /** The least fire instant after {@code after}, searching every local day from two days before it on. */
        Optional<Instant> next(ZoneId zone, Instant after) {
            ZoneRules rules = zone.getRules();
            LocalDate first = LocalDateTime.ofInstant(after, zone).toLocalDate().minusDays(2);
            Instant best = null;
            LocalDate lastDay = null;
            for (LocalDate d = first; d.isBefore(first.plusYears(2)); d = d.plusDays(1)) {
                if (lastDay != null && d.isAfter(lastDay)) {
                    break;
                }
                if (!matchesDay(d)) {
                    continue;
                }
                for (int h = hours.nextSetBit(0); h >= 0; h = hours.nextSetBit(h + 1)) {
                    for (int m = minutes.nextSetBit(0); m >= 0; m = minutes.nextSetBit(m + 1)) {
                        Instant i = instantOf(d.atTime(LocalTime.of(h, m)), rules);
                        if (i.isAfter(after) && (best == null || i.isBefore(best))) {
                            best = i;
                            // offsets shift a local day by less than two days, so later days cannot do better
                            lastDay = lastDay == null ? d.plusDays(2) : lastDay;
                        }
                    }
                }
            }
            return Optional.ofNullable(best);
        }
    }
}
