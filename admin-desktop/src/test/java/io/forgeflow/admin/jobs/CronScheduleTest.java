package io.forgeflow.admin.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CronScheduleTest {
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static List<Instant> next(String cron, String after, ZoneId zone, int n) {
        return CronSchedule.parse(cron).next(n, Instant.parse(after), zone);
    }

    @Test
    void everyFifteenMinutes() {
        assertThat(next("*/15 * * * *", "2026-07-01T09:07:00Z", ZoneOffset.UTC, 3)).containsExactly(
                Instant.parse("2026-07-01T09:15:00Z"), Instant.parse("2026-07-01T09:30:00Z"),
                Instant.parse("2026-07-01T09:45:00Z"));
    }

    @Test
    void aFireTimeIsStrictlyAfterTheStart() {
        assertThat(next("0 * * * *", "2026-07-01T09:00:00Z", ZoneOffset.UTC, 1))
                .containsExactly(Instant.parse("2026-07-01T10:00:00Z"));
    }

    @Test
    void macrosAreEvaluatedInTheJobsZone() {
        assertThat(next("@daily", "2026-07-01T09:00:00Z", BERLIN, 2)).containsExactly(
                Instant.parse("2026-07-01T22:00:00Z"), Instant.parse("2026-07-02T22:00:00Z"));
    }

    @Test
    void aTickInTheSpringGapFiresOnceAtTheFirstValidInstant() {
        // 2026-03-29 in Berlin: 02:00 CET jumps to 03:00 CEST (01:00Z)
        assertThat(next("30 2 * * *", "2026-03-28T12:00:00Z", BERLIN, 2)).containsExactly(
                Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-30T00:30:00Z"));
        assertThat(next("0 * * * *", "2026-03-29T00:30:00Z", BERLIN, 2)).as("02:00 and 03:00 are one instant")
                .containsExactly(Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-29T02:00:00Z"));
    }

    @Test
    void aTickInTheAutumnOverlapFiresOnceAtItsFirstOccurrence() {
        // 2026-10-25 in Berlin: 03:00 CEST goes back to 02:00 CET; 02:30 happens twice
        assertThat(next("30 2 * * *", "2026-10-24T12:00:00Z", BERLIN, 2)).containsExactly(
                Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
        assertThat(next("30 2 * * *", "2026-10-25T00:45:00Z", BERLIN, 1)).as("from inside the overlap")
                .containsExactly(Instant.parse("2026-10-26T01:30:00Z"));
    }

    @Test
    void namesListsRangesAndStepsWork() {
        assertThat(next("0 9 * JAN,jul MON-FRI", "2026-07-03T10:00:00Z", ZoneOffset.UTC, 2)).containsExactly(
                Instant.parse("2026-07-06T09:00:00Z"), Instant.parse("2026-07-07T09:00:00Z"));
        assertThat(next("0 0 * * 7", "2026-07-01T00:00:00Z", ZoneOffset.UTC, 1)).as("7 is Sunday")
                .containsExactly(Instant.parse("2026-07-05T00:00:00Z"));
        assertThat(next("5-20/5 3 * * *", "2026-07-01T00:00:00Z", ZoneOffset.UTC, 4)).containsExactly(
                Instant.parse("2026-07-01T03:05:00Z"), Instant.parse("2026-07-01T03:10:00Z"),
                Instant.parse("2026-07-01T03:15:00Z"), Instant.parse("2026-07-01T03:20:00Z"));
    }

    @Test
    void dayOfMonthAndDayOfWeekTogetherMatchEither() {
        // the 1st of the month or any Monday
        assertThat(next("0 0 1 * MON", "2026-07-01T12:00:00Z", ZoneOffset.UTC, 2)).containsExactly(
                Instant.parse("2026-07-06T00:00:00Z"), Instant.parse("2026-07-13T00:00:00Z"));
    }

    @Test
    void sixFieldsStartWithSeconds() {
        assertThat(next("*/20 * * * * *", "2026-07-01T00:00:05Z", ZoneOffset.UTC, 3)).containsExactly(
                Instant.parse("2026-07-01T00:00:20Z"), Instant.parse("2026-07-01T00:00:40Z"),
                Instant.parse("2026-07-01T00:01:00Z"));
    }

    @Test
    void leapDaysAreFound() {
        assertThat(next("0 0 29 2 *", "2026-01-01T00:00:00Z", ZoneOffset.UTC, 1))
                .containsExactly(Instant.parse("2028-02-29T00:00:00Z"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "* * * *|Cron needs 5 fields",
            "60 * * * *|minute field '60' is out of range",
            "* 24 * * *|hour field '24' is out of range",
            "* * 0 * *|day-of-month field '0' is out of range",
            "* * * 13 *|month field '13' is out of range",
            "* * * * 8|day-of-week field '8' is out of range",
            "*/0 * * * *|step below 1",
            "10-5 * * * *|runs backwards",
            "x * * * *|is not a number",
            "* * * FOO *|or a name such as JAN",
            "@sometimes|Unknown macro",
            "0 0 30 2 *|never fires",
            "? * * * *|only in the day-of-month and day-of-week"})
    void mistakesAreExplained(String cron, String message) {
        assertThatThrownBy(() -> CronSchedule.parse(cron)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void quartzFormsAreLeftToTheServer() {
        CronSchedule lastFriday = CronSchedule.parse("0 0 12 ? * FRIL");
        CronSchedule wednesdays = CronSchedule.parse("0 0 12 ? * WED");

        assertThat(lastFriday.previewable()).isFalse();
        assertThat(lastFriday.next(5, Instant.EPOCH, ZoneOffset.UTC)).isEmpty();
        assertThat(wednesdays.previewable()).as("WED is a name, not a Quartz W").isTrue();
    }
}
