package io.forgeflow.application.schedule;

import io.forgeflow.application.schedule.PreviewSchedule.PreviewedFire;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PreviewScheduleTest {
    final MutableClock clock = MutableClock.at("2026-03-07T12:00:00Z");
    final PreviewSchedule preview = new PreviewSchedule(new CronUtilsSchedules(), clock);

    @Test
    void aTickInTheSpringGapFiresAtTheFirstValidInstantWithANote() {
        List<PreviewedFire> fires = preview.preview("30 2 * * *", "America/New_York", null, 3);

        assertThat(fires).extracting(f -> f.at().toString())
                .containsExactly("2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z");
        assertThat(fires.get(0).local()).hasToString("2026-03-08T03:00-04:00");
        assertThat(fires.get(0).note()).isEqualTo("02:30 does not exist (DST gap): fired at the first valid instant");
        assertThat(fires.get(1).note()).isNull();
        assertThat(fires.get(1).local()).hasToString("2026-03-09T02:30-04:00");
    }

    @Test
    void aRepeatedLocalTimeFiresOnceWithANote() {
        List<PreviewedFire> fires = preview.preview("30 1 * * *", "America/New_York",
                Instant.parse("2026-10-31T12:00:00Z"), 2);

        assertThat(fires).extracting(f -> f.at().toString()).containsExactly("2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z");
        assertThat(fires.get(0).note()).isEqualTo("01:30 happens twice (DST overlap): fired at the first occurrence only");
        assertThat(fires.get(1).note()).isNull();
    }

    @Test
    void secondsAppearInTheNoteWhenTheExpressionHasThem() {
        List<PreviewedFire> fires = preview.preview("15 30 2 * * *", "Europe/Berlin", Instant.parse("2026-03-28T12:00:00Z"), 1);

        assertThat(fires.get(0).at()).isEqualTo(Instant.parse("2026-03-29T01:00:00Z"));
        assertThat(fires.get(0).note()).startsWith("02:30:15 does not exist");
    }

    @Test
    void afterDefaultsToNowAndTheZoneToUtc() {
        clock.set(Instant.parse("2026-05-05T10:10:00Z"));

        List<PreviewedFire> fires = preview.preview("0 * * * *", null, null, 2);

        assertThat(fires).extracting(f -> f.at().toString()).containsExactly("2026-05-05T11:00:00Z", "2026-05-05T12:00:00Z");
        assertThat(fires.get(0).local()).hasToString("2026-05-05T11:00Z");
    }

    @Test
    void anExpressionThatStopsFiringReturnsFewerThanAskedFor() {
        List<PreviewedFire> fires = preview.preview("0 0 29 2 *", "UTC", Instant.parse("2026-01-01T00:00:00Z"), 2);

        assertThat(fires).extracting(f -> f.at().toString()).containsExactly("2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z");
    }

    @Test
    void exactlyCountFiresAreReturned() {
        assertThat(preview.preview("* * * * *", "UTC", null, PreviewSchedule.MAX_COUNT)).hasSize(100);
        assertThat(preview.preview("* * * * *", "UTC", null, 1)).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 101})
    void aCountOutsideOneToAHundredIsABug(int count) {
        assertThatThrownBy(() -> preview.preview("* * * * *", "UTC", null, count)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBadExpressionOrZoneIsRefusedNamingTheField() {
        assertThatThrownBy(() -> preview.preview("0 0 1,L * *", "UTC", null, 1))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("cron_expr"));
        assertThatThrownBy(() -> preview.preview("0 0 * * *", "Mars/Olympus", null, 1))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("timezone"))
                .hasMessageContaining("Mars/Olympus").hasMessageContaining("Europe/Berlin");
    }

    static java.time.Instant at(String t) {
        return java.time.Instant.parse(t);
    }

    @Test
    void aWindowKeepsTheTicksInsideItAndNotesTheLastBeforeEndAt() {
        var controls = new io.forgeflow.domain.job.ScheduleControls(at("2026-03-08T00:00:00Z"),
                at("2026-03-08T02:00:00Z"), null, 0, null);

        var fires = preview.preview("0 * * * *", null, controls, null, 0, null, 10);

        assertThat(fires).extracting(PreviewSchedule.PreviewedFire::at).containsExactly(at("2026-03-08T00:00:00Z"),
                at("2026-03-08T01:00:00Z"), at("2026-03-08T02:00:00Z"));
        assertThat(fires).extracting(PreviewSchedule.PreviewedFire::note).containsExactly(null, null,
                "the last tick before end_at");
        assertThat(fires.get(0).tick()).isEqualTo(fires.get(0).at());
        assertThat(fires.get(0).jitterSeconds()).isZero();
    }

    @Test
    void maxRunsLeavesTheRunsNotFiredYetAndNotesTheLast() {
        var controls = new io.forgeflow.domain.job.ScheduleControls(null, null, 5, 0, null);

        var fires = preview.preview("0 * * * *", null, controls, null, 3, null, 10);

        assertThat(fires).hasSize(2);
        assertThat(fires.get(1).note()).isEqualTo("the last run (max_runs 5)");
        assertThat(preview.preview("0 * * * *", null, controls, null, 7, null, 10)).as("all fired").isEmpty();
        assertThat(preview.preview("0 * * * *", null, controls, null, 0, null, 2)).as("count first").hasSize(2)
                .allMatch(f -> f.note() == null);
    }

    @Test
    void aJobsJitterMovesEachFireOffItsTickAndItsNotesJoinTheDaylightSavingOnes() {
        String job = "0190b0c4-7f2a-7cde-8f00-000000000001";
        var controls = new io.forgeflow.domain.job.ScheduleControls(null, at("2026-03-08T07:00:00Z"), null, 600, null);

        var fires = preview.preview("30 2 * * *", "America/New_York", controls, job, 0, null, 5);

        assertThat(fires).hasSize(1);
        var fire = fires.get(0);
        assertThat(fire.tick()).isEqualTo(at("2026-03-08T07:00:00Z"));
        assertThat(fire.jitterSeconds()).isEqualTo((int) controls.jitterOf(job, fire.tick()).toSeconds());
        assertThat(fire.at()).isEqualTo(fire.tick().plusSeconds(fire.jitterSeconds()));
        assertThat(fire.local().toInstant()).isEqualTo(fire.at());
        assertThat(fire.note()).isEqualTo("02:30 does not exist (DST gap): fired at the first valid instant; "
                + "the last tick before end_at");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> preview.preview("* * * * *", null, controls,
                job, 0, null, 0))).isInstanceOf(IllegalArgumentException.class);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> preview.preview("* * * * *", null, controls,
                job, 0, null, 101))).isInstanceOf(IllegalArgumentException.class);
        assertThat(preview.preview("0 0 1 1 *", null, io.forgeflow.domain.job.ScheduleControls.NONE, null, 0, null,
                100)).as("an expression that fires yearly").hasSize(100);
    }
}
