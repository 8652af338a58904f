package io.forgeflow.application.schedule;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.ScheduleControls;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ticker, submission, pause and resume under a job's schedule controls (issue 45). */
class ScheduleControlsTickerTest {
    final Scenario s = new Scenario(); // 2026-01-15T10:00:00Z
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final ScheduleTicker ticker = new ScheduleTicker(s.store.jobs(), s.cron, election, s.signal,
            Duration.ofSeconds(60), null);

    static Instant at(String time) {
        return Instant.parse("2026-01-15T" + time + "Z");
    }

    Job hourly(ScheduleControls controls) {
        return s.submit(aRecurringDraft("0 * * * *").withSchedule(controls));
    }

    /** Moves the clock to {@code time} plus a few seconds and runs one pass. */
    int passAt(String time) {
        s.setClock("2026-01-15T" + time + "Z");
        s.advance(Duration.ofSeconds(5));
        return ticker.runOnce();
    }

    List<Run> runsOf(Job job) {
        return s.runsOf(job.id()).stream().sorted(Comparator.comparing(Run::scheduledFor)).toList();
    }

    @Test
    void theFirstTickIsTheFirstAtOrAfterStartAt() {
        Job job = hourly(new ScheduleControls(at("13:00:00"), null, null, null, null));

        assertThat(job.nextRunAt()).as("a tick exactly at start_at fires").isEqualTo(at("13:00:00"));
        assertThat(passAt("11:00:00")).isZero();
        assertThat(passAt("13:00:00")).isEqualTo(1);
        assertThat(s.job(job.id()).nextRunAt()).isEqualTo(at("14:00:00"));
    }

    @Test
    void aStartInThePastChangesNothing() {
        Job job = hourly(new ScheduleControls(at("08:30:00"), null, null, null, null));

        assertThat(job.nextRunAt()).isEqualTo(at("11:00:00"));
    }

    @Test
    void theJobCompletesWithTheLastTickBeforeEndAt() {
        Job job = hourly(new ScheduleControls(null, at("12:00:00"), null, null, null));

        assertThat(passAt("11:00:00")).isEqualTo(1);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.ACTIVE);
        assertThat(passAt("12:00:00")).as("a tick exactly at end_at fires").isEqualTo(1);
        Job done = s.job(job.id());
        assertThat(done.status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(done.nextRunAt()).isNull();
        assertThat(passAt("13:00:00")).isZero();
        assertThat(runsOf(job)).extracting(Run::scheduledFor).containsExactly(at("11:00:00"), at("12:00:00"));
    }

    @Test
    void theJobCompletesAfterMaxRuns() {
        Job job = hourly(new ScheduleControls(null, null, 2, null, null));

        passAt("11:00:00");
        assertThat(s.job(job.id()).schedule().firedRuns()).isEqualTo(1);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.ACTIVE);
        passAt("12:00:00");
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(passAt("13:00:00")).isZero();
        assertThat(runsOf(job)).hasSize(2);
    }

    @Test
    void aJobWhoseRunsAreAllFiredCompletesWithoutAnotherRun() {
        Job job = hourly(new ScheduleControls(null, null, 5, null, null));
        passAt("11:00:00");
        // max_runs lowered by an edit below the runs already fired
        Job stored = s.job(job.id());
        s.store.jobs().update(job.id(), stored.updatedAt(),
                stored.spec().withSchedule(new ScheduleControls(null, null, 1, 0, null)), stored.nextRunAt(),
                io.forgeflow.domain.port.JobRepository.PendingRuns.KEEP, null);

        assertThat(passAt("12:00:00")).isZero();

        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(runsOf(job)).hasSize(1);
    }

    @Test
    void aTickOutsideAWindowMovedByAnEditFiresNoRun() {
        Job job = hourly(ScheduleControls.NONE);
        Job stored = s.job(job.id());
        s.store.jobs().update(job.id(), stored.updatedAt(),
                stored.spec().withSchedule(new ScheduleControls(at("11:30:00"), null, null, 0, null)),
                stored.nextRunAt(), io.forgeflow.domain.port.JobRepository.PendingRuns.KEEP, null);

        assertThat(passAt("11:00:00")).isZero();

        assertThat(runsOf(job)).isEmpty();
        assertThat(s.job(job.id()).nextRunAt()).isEqualTo(at("12:00:00"));
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.ACTIVE);
    }

    @Test
    void aRunIsDueAtItsTickPlusTheJobsJitterForIt() {
        ScheduleControls jitter = new ScheduleControls(null, null, null, 600, null);
        Job job = hourly(jitter);
        assertThat(job.nextDueAt()).isEqualTo(at("11:00:00").plus(jitter.jitterOf(job.id(), at("11:00:00"))));

        passAt("11:00:00");

        Run run = s.onlyRunOf(job.id());
        assertThat(run.scheduledFor()).isEqualTo(at("11:00:00").plus(jitter.jitterOf(job.id(), at("11:00:00"))));
        assertThat(s.job(job.id()).nextRunAt()).as("the schedule itself is not moved").isEqualTo(at("12:00:00"));
    }

    @Test
    void twoSchedulersComputeTheSameJitter() {
        ScheduleControls jitter = new ScheduleControls(null, null, null, 3_000, null);
        Job job = hourly(jitter);
        ScheduleTicker other = new ScheduleTicker(s.store.jobs(), new CronUtilsSchedules(),
                FakeLeaderElection.leading(), s.signal, Duration.ofSeconds(60), null);

        passAt("11:00:00");
        s.setClock("2026-01-15T12:00:05Z");
        other.runOnce();

        List<Run> runs = runsOf(job);
        assertThat(runs).hasSize(2);
        assertThat(Duration.between(at("11:00:00"), runs.get(0).scheduledFor()))
                .isEqualTo(jitter.jitterOf(job.id(), at("11:00:00")));
        assertThat(Duration.between(at("12:00:00"), runs.get(1).scheduledFor()))
                .isEqualTo(jitter.jitterOf(job.id(), at("12:00:00")));
    }

    @Test
    void aWindowWithoutATickIsRefusedNamingEndAt() {
        assertThatThrownBy(() -> hourly(new ScheduleControls(at("10:10:00"), at("10:50:00"), null, null, null)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("end_at");
                    assertThat(e.getMessage()).contains("does not fire between start_at and end_at");
                });
        assertThatThrownBy(() -> hourly(new ScheduleControls(null, at("10:50:00"), null, null, null)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("end_at");
                    assertThat(e.getMessage()).contains("between now and end_at");
                });
    }

    @Test
    void aPauseKeepsItsNoteAndAuthorAndAResumeClearsThem() {
        Job job = hourly(ScheduleControls.NONE);

        Job paused = s.pauseJob().pause(job.id(), " waiting for the vendor ", "token 2");

        assertThat(paused.status()).isEqualTo(JobStatus.PAUSED);
        assertThat(paused.schedule().pausedNote()).isEqualTo("waiting for the vendor");
        assertThat(paused.schedule().pausedBy()).isEqualTo("token 2");
        assertThat(s.pauseJob().pause(job.id(), null, "token 3")).as("a pause without a note keeps the note")
                .isEqualTo(s.job(job.id()));
        assertThat(s.pauseJob().pause(job.id(), "waiting for the vendor", "token 2")).isEqualTo(s.job(job.id()));
        Job renoted = s.pauseJob().pause(job.id(), "vendor fixed it tomorrow", "token 3");
        assertThat(renoted.schedule().pausedNote()).isEqualTo("vendor fixed it tomorrow");
        assertThat(renoted.schedule().pausedBy()).isEqualTo("token 3");
        Job resumed = s.resumeJob().resume(job.id());
        assertThat(resumed.schedule().pausedNote()).isNull();
        assertThat(resumed.schedule().pausedBy()).isNull();
        assertThatThrownBy(() -> s.pauseJob().pause(job.id(), "x".repeat(501), null))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("note"));
    }

    @Test
    void aJobResumedAfterItsWindowClosedCompletes() {
        Job job = hourly(new ScheduleControls(null, at("12:00:00"), null, null, null));
        s.pauseJob().pause(job.id(), null, null);
        s.setClock("2026-01-15T12:30:00Z");

        Job resumed = s.resumeJob().resume(job.id());

        assertThat(resumed.status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(resumed.nextRunAt()).isNull();
    }

    @Test
    void aJobResumedBeforeItsStartWaitsForIt() {
        Job job = hourly(new ScheduleControls(at("15:00:00"), null, null, null, null));
        s.pauseJob().pause(job.id(), null, null);

        Job resumed = s.resumeJob().resume(job.id());

        assertThat(resumed.status()).isEqualTo(JobStatus.ACTIVE);
        assertThat(resumed.nextRunAt()).isEqualTo(at("15:00:00"));
    }

    @Test
    void aJobResumedWithItsRunsAllFiredCompletes() {
        Job job = hourly(new ScheduleControls(null, null, 2, null, null));
        passAt("11:00:00");
        s.pauseJob().pause(job.id(), null, null);
        Job stored = s.job(job.id());
        s.store.jobs().update(job.id(), stored.updatedAt(),
                stored.spec().withSchedule(new ScheduleControls(null, null, 1, 0, null)), null,
                io.forgeflow.domain.port.JobRepository.PendingRuns.KEEP, null);

        assertThat(s.resumeJob().resume(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
    }

    @Test
    void aCatchUpRunIsOnlyForAMissedTickInsideTheWindow() {
        Job job = s.submit(aRecurringDraft("0 * * * *").catchingUp("once")
                .withSchedule(new ScheduleControls(null, at("11:30:00"), null, null, null)));
        s.pauseJob().pause(job.id(), null, null);
        s.setClock("2026-01-15T11:10:00Z");

        Job resumed = s.resumeJob().resume(job.id());

        assertThat(resumed.status()).as("11:00 was missed inside the window: one run stands for it")
                .isEqualTo(JobStatus.ACTIVE);
        assertThat(resumed.nextRunAt()).isEqualTo(at("11:00:00"));
    }
}
