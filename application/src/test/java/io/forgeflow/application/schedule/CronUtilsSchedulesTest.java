package io.forgeflow.application.schedule;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CronUtilsSchedulesTest {
    final CronUtilsSchedules cron = new CronUtilsSchedules();

    Instant next(String expr, String zone, String after) {
        return cron.nextAfter(expr, ZoneId.of(zone), Instant.parse(after)).orElseThrow();
    }

    @Nested
    class AcrossTheDaylightSavingChangesOf2026 {
        @ParameterizedTest(name = "{0} in {1} after {2} -> {3}")
        @CsvSource(delimiter = '|', value = {
                // Europe/Berlin: gap 2026-03-29 02:00 -> 03:00 (+01 -> +02); overlap 2026-10-25 03:00 -> 02:00
                "30 2 * * *  | Europe/Berlin       | 2026-03-28T12:00:00Z | 2026-03-29T01:00:00Z",
                "30 2 * * *  | Europe/Berlin       | 2026-03-29T01:00:00Z | 2026-03-30T00:30:00Z",
                "0 * * * *   | Europe/Berlin       | 2026-03-29T00:30:00Z | 2026-03-29T01:00:00Z",
                "0 * * * *   | Europe/Berlin       | 2026-03-29T01:00:00Z | 2026-03-29T02:00:00Z",
                "30 2 * * *  | Europe/Berlin       | 2026-10-24T12:00:00Z | 2026-10-25T00:30:00Z",
                "30 2 * * *  | Europe/Berlin       | 2026-10-25T00:30:00Z | 2026-10-26T01:30:00Z",
                "0 * * * *   | Europe/Berlin       | 2026-10-25T00:30:00Z | 2026-10-25T02:00:00Z",
                "0 3 * * *   | Europe/Berlin       | 2026-10-24T12:00:00Z | 2026-10-25T02:00:00Z",
                // America/New_York: gap 2026-03-08 02:00 -> 03:00; overlap 2026-11-01 02:00 -> 01:00
                "30 2 * * *  | America/New_York    | 2026-03-07T12:00:00Z | 2026-03-08T07:00:00Z",
                "30 2 * * *  | America/New_York    | 2026-03-08T07:00:00Z | 2026-03-09T06:30:00Z",
                "30 1 * * *  | America/New_York    | 2026-10-31T12:00:00Z | 2026-11-01T05:30:00Z",
                "30 1 * * *  | America/New_York    | 2026-11-01T05:30:00Z | 2026-11-02T06:30:00Z",
                "*/30 * * * * | America/New_York   | 2026-11-01T05:45:00Z | 2026-11-01T07:00:00Z",
                // Australia/Sydney: overlap 2026-04-05 03:00 -> 02:00 (+11 -> +10); gap 2026-10-04 02:00 -> 03:00
                "30 2 * * *  | Australia/Sydney    | 2026-04-04T00:00:00Z | 2026-04-04T15:30:00Z",
                "30 2 * * *  | Australia/Sydney    | 2026-04-04T15:30:00Z | 2026-04-05T16:30:00Z",
                "30 2 * * *  | Australia/Sydney    | 2026-10-03T00:00:00Z | 2026-10-03T16:00:00Z",
                "30 2 * * *  | Australia/Sydney    | 2026-10-03T16:00:00Z | 2026-10-04T15:30:00Z",
                // Asia/Kolkata: no daylight saving, +05:30
                "30 2 * * *  | Asia/Kolkata        | 2026-03-28T00:00:00Z | 2026-03-28T21:00:00Z",
                "0 0 * * *   | Asia/Kolkata        | 2026-10-25T00:00:00Z | 2026-10-25T18:30:00Z",
                // UTC, seconds, macros
                "*/5 * * * * | UTC                 | 2026-01-01T00:00:00Z | 2026-01-01T00:05:00Z",
                "15 */5 * * * * | UTC              | 2026-01-01T00:00:00Z | 2026-01-01T00:00:15Z",
                "@hourly     | UTC                 | 2026-01-01T00:30:00Z | 2026-01-01T01:00:00Z",
                "@daily      | UTC                 | 2026-01-01T00:30:00Z | 2026-01-02T00:00:00Z",
                "@midnight   | UTC                 | 2026-01-01T00:30:00Z | 2026-01-02T00:00:00Z",
                "@weekly     | UTC                 | 2026-01-01T00:30:00Z | 2026-01-04T00:00:00Z",
                "@monthly    | UTC                 | 2026-01-01T00:30:00Z | 2026-02-01T00:00:00Z",
                "@yearly     | UTC                 | 2026-01-01T00:30:00Z | 2027-01-01T00:00:00Z",
                "@annually   | UTC                 | 2026-01-01T00:30:00Z | 2027-01-01T00:00:00Z",
                "0 9 * * 1-5 | Europe/Berlin       | 2026-01-02T09:00:00Z | 2026-01-05T08:00:00Z"})
        void theNextFireTimeFollowsTheDaylightSavingPolicy(String expr, String zone, String after, String expected) {
            assertThat(next(expr.trim(), zone.trim(), after.trim())).isEqualTo(Instant.parse(expected.trim()));
        }

        @ParameterizedTest(name = "{0} in {1}")
        @CsvSource(delimiter = '|', value = {
                "0 * * * *    | Europe/Berlin", "30 2 * * *  | Europe/Berlin", "*/20 * * * * | America/New_York",
                "0 * * * *    | America/New_York", "30 1,2,3 * * * | Australia/Sydney", "0 * * * *   | Australia/Sydney",
                "*/15 * * * * | Asia/Kolkata", "0 0 2 * * *  | Europe/Berlin"})
        void fireTimesAreStrictlyIncreasingAndNeverRepeatALocalTime(String expr, String zoneName) {
            ZoneId zone = ZoneId.of(zoneName.trim());
            Instant t = Instant.parse("2026-01-01T00:00:00Z");
            Instant end = Instant.parse("2027-01-01T00:00:00Z");
            Set<LocalDateTime> localTimes = new HashSet<>();
            int fires = 0;
            while (t.isBefore(end)) {
                Instant n = cron.nextAfter(expr.trim(), zone, t).orElseThrow();
                assertThat(n).isAfter(t);
                assertThat(localTimes.add(LocalDateTime.ofInstant(n, zone)))
                        .as("local time %s fired twice", LocalDateTime.ofInstant(n, zone)).isTrue();
                t = n;
                fires++;
            }
            assertThat(fires).isPositive();
        }

        @Test
        void aDailyTickInTheGapFiresExactlyOnceThatDay() {
            ZoneId berlin = ZoneId.of("Europe/Berlin");
            Instant t = Instant.parse("2026-03-27T00:00:00Z");
            int onTheDay = 0;
            while (t.isBefore(Instant.parse("2026-04-01T00:00:00Z"))) {
                t = cron.nextAfter("30 2 * * *", berlin, t).orElseThrow();
                if (t.atZone(berlin).toLocalDate().toString().equals("2026-03-29")) {
                    onTheDay++;
                }
            }
            assertThat(onTheDay).isEqualTo(1);
        }
    }

    @Nested
    class CalendarDays {
        @ParameterizedTest(name = "{0} in {1} after {2} -> {3}")
        @CsvSource(delimiter = '|', value = {
                "0 0 L * *    | UTC               | 2026-02-01T00:00:00Z | 2026-02-28T00:00:00Z",
                "0 0 L * *    | UTC               | 2028-02-01T00:00:00Z | 2028-02-29T00:00:00Z",
                "0 0 L-2 * *  | UTC               | 2026-04-01T00:00:00Z | 2026-04-28T00:00:00Z",
                "0 0 15W * *  | UTC               | 2026-02-01T00:00:00Z | 2026-02-16T00:00:00Z",
                "0 0 1W * *   | UTC               | 2026-07-31T00:00:00Z | 2026-08-03T00:00:00Z",
                "0 0 LW * *   | UTC               | 2026-05-01T00:00:00Z | 2026-05-29T00:00:00Z",
                "0 0 * * 1#1  | UTC               | 2026-06-02T00:00:00Z | 2026-07-06T00:00:00Z",
                "0 0 * * 5L   | UTC               | 2026-07-01T00:00:00Z | 2026-07-31T00:00:00Z",
                // Cairo's clocks go from 00:00 to 01:00 on the last Friday of April 2026: the gap policy holds
                "0 0 * * 5L   | Africa/Cairo      | 2026-04-01T00:00:00Z | 2026-04-23T22:00:00Z",
                // US clocks go forward at 02:00 on the second Sunday of March
                "30 2 * * 0#2 | America/New_York  | 2026-03-01T00:00:00Z | 2026-03-08T07:00:00Z",
                // Havana's clocks go back from 01:00 to 00:00 on 2026-11-01: the last day of October fires once
                "0 0 L * *    | America/Havana    | 2026-10-30T12:00:00Z | 2026-10-31T04:00:00Z"})
        void calendarDaysFireOnTheirDayWithTheDaylightSavingPolicy(String expr, String zone, String after, String expected) {
            assertThat(next(expr.trim(), zone.trim(), after.trim())).isEqualTo(Instant.parse(expected.trim()));
        }
    }

    @Nested
    class Validation {
        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "* * * *         | has 4 fields",
                "* * * * * * *   | has 7 fields",
                "61 * * * *      | is not valid",
                "* 25 * * *      | is not valid",
                "hello world a b c | is not valid",
                "@fortnightly    | macro",
                "0 0 30 2 *      | never fires",
                "0 0 L-30 2 *    | never fires",
                "0 0 1,L * *     | uses L, W or # wrongly",
                "0 0 L-5,L * *   | uses L, W or # wrongly",
                "0 0 31W * *     | uses L, W or # wrongly",
                "0 0 29W * *     | uses L, W or # wrongly",
                "0 0 28W * *     | uses L, W or # wrongly",
                "0 0 0W * *      | uses L, W or # wrongly",
                "0 0 W * *       | uses L, W or # wrongly",
                "0 0 LL * *      | uses L, W or # wrongly",
                "0 0 L-0 * *     | uses L, W or # wrongly",
                "0 0 L-31 * *    | uses L, W or # wrongly",
                "0 0 L * 1       | uses L, W or # wrongly",
                "0 0 LW * 1-5    | uses L, W or # wrongly",
                "0 0 1 * 5L      | uses L, W or # wrongly",
                "0 0 15 * 1#1    | uses L, W or # wrongly",
                "0 0 * * L       | uses L, W or # wrongly",
                "0 0 * * 1#6     | uses L, W or # wrongly",
                "0 0 * * 1#0     | uses L, W or # wrongly",
                "0 0 * * 8#1     | uses L, W or # wrongly",
                "0 0 * * 8L      | uses L, W or # wrongly",
                "0 0 * * 1#1,5L  | uses L, W or # wrongly",
                "0 0 * * #1      | uses L, W or # wrongly",
                "0 0 * * 1W      | uses L, W or # wrongly"})
        void invalidExpressionsAreRefusedNamingCronExpr(String expr, String message) {
            assertThatThrownBy(() -> cron.validate(expr.trim()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("cron_expr"))
                    .hasMessageContaining(message.trim());
        }

        @Test
        void validExpressionsPass() {
            for (String ok : new String[]{"*/5 * * * *", "0 */5 * * * *", "@daily", "@HOURLY", "0 9 * * MON-FRI", "0 0 1 1 *",
                    "0 0 * * WED", "0 0 L * *", "0 0 L-1 * *", "0 0 L-30 * *", "0 0 LW * *", "0 0 1W * *", "0 0 27W * *",
                    "0 0 * * 1#1", "0 0 * * FRI#2", "0 0 * * 5L", "0 0 * * 7L", "0 0 * * 0#5", "0 6 L 1,4,7,10 *"}) {
                cron.validate(ok);
            }
        }

        @Test
        void emptyExpressionsAreRefused() {
            assertThatThrownBy(() -> cron.validate(" ")).isInstanceOf(ValidationException.class);
        }
    }
}
