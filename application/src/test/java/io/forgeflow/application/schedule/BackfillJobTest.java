package io.forgeflow.application.schedule;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Backfill;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.JobRepository.BackfillOutcome;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillJobTest {
    final Scenario s = new Scenario(); // 2026-01-15T10:00:00Z
    final BackfillJob backfill = new BackfillJob(s.store.jobs(), s.cron, s.signal, s.clock);

    static Backfill range(String from, String to) {
        return Backfill.of(Instant.parse(from), Instant.parse(to), null, null);
    }

    @Test
    void everyTickOfTheRangeBothEndsIncludedGetsOneRunDueAtItsTick() {
        Job job = s.submit(aRecurringDraft("0 */6 * * *"));

        BackfillOutcome outcome = backfill.backfill(job.id(), range("2026-01-14T00:00:00Z", "2026-01-14T18:00:00Z"));

        assertThat(outcome.runs()).extracting(Run::scheduledFor).containsExactly(
                Instant.parse("2026-01-14T00:00:00Z"), Instant.parse("2026-01-14T06:00:00Z"),
                Instant.parse("2026-01-14T12:00:00Z"), Instant.parse("2026-01-14T18:00:00Z"));
        assertThat(outcome.progress().ticks()).isEqualTo(4);
        assertThat(outcome.progress().created()).isEqualTo(4);
        assertThat(s.signal.count()).as("the workers are woken").isEqualTo(1);
        assertThat(backfill.progress(job.id(), outcome.progress().id()).runs()).containsEntry("pending", 4L);
    }

    @Test
    void aSecondCallAddsNothingAndWakesNobody() {
        Job job = s.submit(aRecurringDraft("0 */6 * * *"));
        backfill.backfill(job.id(), range("2026-01-14T00:00:00Z", "2026-01-14T18:00:00Z"));

        BackfillOutcome again = backfill.backfill(job.id(), range("2026-01-14T00:00:00Z", "2026-01-14T18:00:00Z"));

        assertThat(again.runs()).isEmpty();
        assertThat(again.progress().created()).isZero();
        assertThat(s.signal.count()).isEqualTo(1);
        assertThat(s.runsOf(job.id())).hasSize(4);
    }

    @Test
    void tenThousandTicksAreAllowedAndOneMoreIsRefusedNamingTo() {
        Job job = s.submit(aRecurringDraft("0 * * * *"));
        Instant from = Instant.parse("2024-01-01T00:00:00Z");
        Job stored = s.job(job.id());
        List<Instant> ticks = backfill.ticks(stored, Backfill.of(from, from.plusSeconds(3600L * 9_999), null, null));
        assertThat(ticks).hasSize(10_000);
        assertThat(ticks.get(9_999)).isEqualTo(from.plusSeconds(3600L * 9_999));

        assertThatThrownBy(() -> backfill.backfill(job.id(), Backfill.of(from, from.plusSeconds(3600L * 10_000), null,
                null))).isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("to");
                    assertThat(e.getMessage()).contains(from.plusSeconds(3600L * 10_000).toString());
                });
        assertThat(s.runsOf(job.id())).isEmpty();
    }

    @Test
    void aRangeWithoutTicksStoresAnEmptyBackfill() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));

        BackfillOutcome outcome = backfill.backfill(job.id(), range("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"));

        assertThat(outcome.progress().ticks()).isZero();
        assertThat(outcome.progress().done()).isTrue();
        assertThat(s.signal.count()).isZero();
        assertThat(backfill.ticks(s.job(job.id()), range("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")))
                .as("a tick exactly at from and to").containsExactly(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void aPausedJobIsBackfilledButAOneOffCancelledOrUnknownJobIsNot() {
        Job paused = s.submit(aRecurringDraft("0 */6 * * *"));
        s.pauseJob().pause(paused.id());
        assertThat(backfill.backfill(paused.id(), range("2026-01-14T00:00:00Z", "2026-01-14T05:00:00Z")).runs())
                .hasSize(1);

        Job oneOff = s.submit(aDraft());
        assertThatThrownBy(() -> backfill.backfill(oneOff.id(), range("2026-01-14T00:00:00Z", "2026-01-14T05:00:00Z")))
                .isInstanceOf(ConflictException.class).hasMessageContaining("one-off");
        Job cancelled = s.submit(aRecurringDraft("0 */6 * * *"));
        s.cancelJob().cancel(cancelled.id());
        assertThatThrownBy(() -> backfill.backfill(cancelled.id(), range("2026-01-14T00:00:00Z",
                "2026-01-14T05:00:00Z"))).isInstanceOf(ConflictException.class).hasMessageContaining("is cancelled");
        assertThatThrownBy(() -> backfill.backfill("0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b",
                range("2026-01-14T00:00:00Z", "2026-01-14T05:00:00Z"))).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> backfill.progress(paused.id(), "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b"))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> backfill.progress("0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b",
                "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b")).isInstanceOf(NotFoundException.class);
    }
}
