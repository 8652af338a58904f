package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScheduleControlsTest {
    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");
    static final String JOB = "0190b0c4-7f2a-7cde-8f00-000000000001";

    static ScheduleControls window(Instant start, Instant end) {
        return new ScheduleControls(start, end, null, null, null);
    }

    static void refused(ScheduleControls c, boolean recurring, String field, String text) {
        assertThatThrownBy(() -> c.validate(recurring)).isInstanceOfSatisfying(ValidationException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).contains(text);
        });
    }

    @Test
    void everyPartIsCheckedAtItsBounds() {
        assertThat(new ScheduleControls(null, null, 1, 0, 1).validate(true)).isEqualTo(
                new ScheduleControls(null, null, 1, 0, 1));
        assertThat(new ScheduleControls(null, null, 1_000_000, 86_400, 1_000).validate(true).maxRuns())
                .isEqualTo(1_000_000);
        refused(new ScheduleControls(null, null, 0, null, null), true, "max_runs", "between 1 and 1000000, was 0");
        refused(new ScheduleControls(null, null, 1_000_001, null, null), true, "max_runs", "was 1000001");
        refused(new ScheduleControls(null, null, null, -1, null), true, "jitter_seconds", "between 0 and 86400, was -1");
        refused(new ScheduleControls(null, null, null, 86_401, null), true, "jitter_seconds", "was 86401");
        refused(new ScheduleControls(null, null, null, null, 0), true, "pause_after_failures", "between 1 and 1000");
        refused(new ScheduleControls(null, null, null, null, 1_001), true, "pause_after_failures", "was 1001");
    }

    @Test
    void theEndMustComeAfterTheStart() {
        refused(window(T, T), true, "end_at", "must be later than start_at");
        refused(window(T, T.minusSeconds(1)), true, "end_at", "later");
        assertThat(window(T, T.plusNanos(1)).validate(true).endAt()).isEqualTo(T.plusNanos(1));
        assertThat(window(null, T).validate(true).endAt()).isEqualTo(T);
        assertThat(window(T, null).validate(true).startAt()).isEqualTo(T);
    }

    @Test
    void jitterDefaultsToZeroAndNothingGivenIsPlain() {
        ScheduleControls none = new ScheduleControls(null, null, null, null, null);
        assertThat(none.validate(true)).isEqualTo(ScheduleControls.NONE);
        assertThat(none.isPlain()).isTrue();
        assertThat(ScheduleControls.NONE.isPlain()).isTrue();
        assertThat(ScheduleControls.NONE.jitter()).isZero();
        assertThat(new ScheduleControls(T, null, null, null, null).isPlain()).isFalse();
        assertThat(new ScheduleControls(null, T, null, null, null).isPlain()).isFalse();
        assertThat(new ScheduleControls(null, null, 1, null, null).isPlain()).isFalse();
        assertThat(new ScheduleControls(null, null, null, 1, null).isPlain()).isFalse();
        assertThat(new ScheduleControls(null, null, null, null, 1).isPlain()).isFalse();
    }

    @Test
    void aOneOffJobTakesNoControlsAndTheFirstGivenIsNamed() {
        refused(new ScheduleControls(T, T.plusSeconds(1), 1, 1, 1), false, "start_at", "recurring jobs only");
        refused(new ScheduleControls(null, T, 1, 1, 1), false, "end_at", "leave end_at out");
        refused(new ScheduleControls(null, null, 1, 1, 1), false, "max_runs", "recurring");
        refused(new ScheduleControls(null, null, null, 1, 1), false, "jitter_seconds", "recurring");
        refused(new ScheduleControls(null, null, null, null, 1), false, "pause_after_failures", "recurring");
        assertThat(new ScheduleControls(null, null, null, 0, null).validate(false)).isSameAs(ScheduleControls.NONE);
        assertThat(new ScheduleControls(null, null, null, null, null).validate(false)).isSameAs(ScheduleControls.NONE);
    }

    @Test
    void theWindowIncludesBothEnds() {
        ScheduleControls w = window(T, T.plusSeconds(60));
        assertThat(w.allows(T.minusNanos(1))).isFalse();
        assertThat(w.allows(T)).isTrue();
        assertThat(w.allows(T.plusSeconds(60))).isTrue();
        assertThat(w.allows(T.plusSeconds(60).plusNanos(1))).isFalse();
        assertThat(w.endedBy(T.plusSeconds(60))).isFalse();
        assertThat(w.endedBy(T.plusSeconds(60).plusNanos(1))).isTrue();
        assertThat(ScheduleControls.NONE.allows(T)).isTrue();
        assertThat(ScheduleControls.NONE.endedBy(Instant.MAX)).isFalse();
    }

    @Test
    void theSearchStartsJustBeforeAFutureStart() {
        ScheduleControls w = window(T, null);
        assertThat(w.searchFrom(T.minusSeconds(10))).isEqualTo(T.minusNanos(1));
        assertThat(w.searchFrom(T)).isEqualTo(T);
        assertThat(w.searchFrom(T.plusSeconds(10))).isEqualTo(T.plusSeconds(10));
        assertThat(ScheduleControls.NONE.searchFrom(T)).isEqualTo(T);
    }

    @Test
    void maxRunsIsExhaustedAtItsCount() {
        ScheduleControls three = new ScheduleControls(null, null, 3, 0, null);
        assertThat(three.exhausted(2)).isFalse();
        assertThat(three.exhausted(3)).isTrue();
        assertThat(three.exhausted(4)).isTrue();
        assertThat(ScheduleControls.NONE.exhausted(Integer.MAX_VALUE)).isFalse();
    }

    @Test
    void jitterIsDeterministicWithinItsBoundsAndSpread() {
        ScheduleControls j = new ScheduleControls(null, null, null, 30, null);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            Instant tick = T.plusSeconds(60L * i);
            Duration d = j.jitterOf(JOB, tick);
            assertThat(d).isBetween(Duration.ZERO, Duration.ofSeconds(30));
            assertThat(j.jitterOf(JOB.toUpperCase(java.util.Locale.ROOT), tick)).as("ids are case-insensitive").isEqualTo(d);
            assertThat(new ScheduleControls(null, null, null, 30, null).jitterOf(JOB, tick)).isEqualTo(d);
            seen.add(d.toSeconds());
        }
        assertThat(seen).as("every second of the range is used, 0 and 30 included").hasSize(31);
        assertThat(ScheduleControls.NONE.jitterOf(JOB, T)).isZero();
        assertThat(new ScheduleControls(null, null, null, 1, null).jitterOf(JOB, T)).isBetween(Duration.ZERO,
                Duration.ofSeconds(1));
    }

    @Test
    void theHashIsFnv1aOfTheUtf8Bytes() {
        assertThat(ScheduleControls.hash("")).isEqualTo(0xcbf29ce484222325L);
        assertThat(ScheduleControls.hash("a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(ScheduleControls.hash("foobar")).isEqualTo(0x85944171f73967e8L);
        assertThat(ScheduleControls.hash("é")).isNotEqualTo(ScheduleControls.hash("e"));
        // a known value pins the mapping of ticks to delays across versions (every node must agree)
        assertThat(new ScheduleControls(null, null, null, 59, null).jitterOf(JOB, T))
                .isEqualTo(Duration.ofSeconds(Long.remainderUnsigned(
                        ScheduleControls.hash(JOB + "@" + T.getEpochSecond()), 60)));
    }

    @Test
    void aJobsDueTimeIsItsNextTickPlusItsJitter() {
        JobSpec spec = new JobDraft("n", "shell", Map.of(), "* * * * *", null, null, null, null, null, null, null)
                .withSchedule(new ScheduleControls(null, null, null, 30, null)).validate();
        Job job = new Job(JOB, spec, JobStatus.ACTIVE, T, T, T);
        assertThat(job.nextDueAt()).isEqualTo(T.plus(spec.schedule().jitterOf(JOB, T)));
        assertThat(job.withStatus(JobStatus.PAUSED, null, T).nextDueAt()).isNull();
        JobSpec oneOff = new JobDraft("n", "shell", Map.of(), null, T, null, null, null, null, null, null).validate();
        assertThat(new Job(JOB, oneOff, JobStatus.ACTIVE, T, T, T).nextDueAt()).isEqualTo(T);
    }

    @Test
    void aJobKeepsItsScheduleStateThroughItsCopies() {
        JobSpec spec = new JobDraft("n", "shell", Map.of(), "* * * * *", null, null, null, null, null, null, null)
                .validate();
        ScheduleState state = new ScheduleState(4, "note", "token 1");
        Job job = new Job(JOB, spec, JobStatus.PAUSED, null, T, T, Job.VIA_REST, null, state);
        assertThat(job.withStatus(JobStatus.ACTIVE, T, T).schedule()).isEqualTo(state);
        assertThat(job.withTrace(null).schedule()).isEqualTo(state);
        assertThat(new Job(JOB, spec, JobStatus.ACTIVE, null, T, T).schedule()).isEqualTo(ScheduleState.NONE);
        assertThat(job.withSchedule(ScheduleState.NONE).schedule()).isEqualTo(ScheduleState.NONE);
    }

    @Test
    void aPauseNoteIsTrimmedBoundedAndPlain() {
        assertThat(ScheduleState.checkNote(null)).isNull();
        assertThat(ScheduleState.checkNote("  ")).isNull();
        assertThat(ScheduleState.checkNote(" db migration\nuntil 10:00 ")).isEqualTo("db migration\nuntil 10:00");
        assertThat(ScheduleState.checkNote("x".repeat(500))).hasSize(500);
        assertThatThrownBy(() -> ScheduleState.checkNote("x".repeat(501))).isInstanceOfSatisfying(
                ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("note");
                    assertThat(e.getMessage()).contains("at most 500", "was 501");
                });
        assertThatThrownBy(() -> ScheduleState.checkNote("a\tb")).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo("note"));
        assertThatThrownBy(() -> new ScheduleState(-1, null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ScheduleState(0, null, null, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deadStreak");
        assertThat(new ScheduleState(0, null, null, 0)).isEqualTo(new ScheduleState(0, null, null));
        assertThat(new ScheduleState(3, "n", "b", 2).deadStreak()).isEqualTo(2);
        assertThat(new ScheduleState(0, null, null)).isEqualTo(ScheduleState.NONE);
    }

    @Test
    void aDraftChecksItsControlsAndAPatchChangesOnlyThePartsItGives() {
        JobDraft recurring = new JobDraft("n", "shell", Map.of(), "* * * * *", null, null, null, null, null, null, null);
        assertThatThrownBy(() -> recurring.withSchedule(new ScheduleControls(null, null, 0, null, null)).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("max_runs"));
        JobSpec spec = recurring.withSchedule(new ScheduleControls(T, T.plusSeconds(3600), 5, 10, 3)).validate();
        assertThat(spec.sameRequestAs(recurring.validate())).isFalse();
        assertThat(spec.sameRequestAs(recurring.withSchedule(new ScheduleControls(T, T.plusSeconds(3600), 5, 10, 3))
                .validate())).isTrue();

        JobDraft values = new JobDraft(null, null, null, null, null, null, null, null, null, null, null)
                .withSchedule(new ScheduleControls(T.plusSeconds(1), null, 9, null, null));
        JobSpec patched = new JobPatch(values, Set.of("start_at", "max_runs")).applyTo(spec);
        assertThat(patched.schedule()).isEqualTo(new ScheduleControls(T.plusSeconds(1), T.plusSeconds(3600), 9, 10, 3));
        JobSpec cleared = new JobPatch(values, Set.of("end_at", "jitter_seconds", "pause_after_failures"))
                .applyTo(spec);
        assertThat(cleared.schedule()).isEqualTo(new ScheduleControls(T, null, 5, 0, null));
        JobSpec kept = new JobPatch(new JobDraft(null, null, null, null, null, null, 3, null, null, null, null),
                Set.of("priority")).applyTo(spec);
        assertThat(kept.schedule()).isEqualTo(spec.schedule());
        assertThat(new JobPatch(values, Set.of("priority")).movesWindow()).isFalse();
        for (String f : new String[] {"start_at", "end_at", "max_runs", "jitter_seconds"}) {
            assertThat(new JobPatch(values, Set.of(f)).movesWindow()).as(f).isTrue();
        }
        assertThat(new JobPatch(values, Set.of("pause_after_failures")).movesWindow()).isFalse();
        assertThat(spec.withSchedule(ScheduleControls.NONE).schedule()).isEqualTo(ScheduleControls.NONE);
        assertThat(spec.withSchedule(ScheduleControls.NONE).name()).isEqualTo("n");
    }

    @Test
    void aJobPausesOnceItsDeadRunsInARowReachTheControl() {
        ScheduleControls three = new ScheduleControls(null, null, null, 0, 3);
        assertThat(three.pausesAfter(2)).isFalse();
        assertThat(three.pausesAfter(3)).isTrue();
        assertThat(three.pausesAfter(4)).isTrue();
        assertThat(ScheduleControls.NONE.pausesAfter(1_000)).as("no control: never").isFalse();
    }

    @Test
    void theNoteOfAPauseOnFailureSaysHowManyAndHowToGoOn() {
        assertThat(ScheduleState.failurePauseNote(3)).isEqualTo("paused by the scheduler after 3 dead runs in a row "
                + "(pause_after_failures: 3); resume the job once the cause is fixed");
        assertThat(ScheduleState.failurePauseNote(1)).isEqualTo("paused by the scheduler after 1 dead run "
                + "(pause_after_failures: 1); resume the job once the cause is fixed");
        assertThat(ScheduleState.failurePauseNote(ScheduleControls.MAX_PAUSE_AFTER_FAILURES))
                .hasSizeLessThanOrEqualTo(ScheduleState.MAX_NOTE_LENGTH);
    }
}
