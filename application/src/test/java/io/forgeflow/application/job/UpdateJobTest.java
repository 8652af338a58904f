package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobPatch;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UpdateJobTest {
    final Scenario s = new Scenario();
    final UpdateJob update = new UpdateJob(s.store.jobs(), s.executors, s.cron, s.signal, s.clock);

    static JobDraft values(String name, Map<String, Object> payload, String cron, Instant runAt, String zone,
                           Integer priority) {
        return new JobDraft(name, null, payload, cron, runAt, zone, priority, null, null, null, null, null, null, null,
                null, null, null);
    }

    static JobPatch patch(JobDraft values, String... given) {
        return new JobPatch(values, Set.of(given));
    }

    @Test
    void aNewCronRecomputesTheNextRunFromNowAndWakesWorkersForFollowingRuns() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));
        s.advance(Duration.ofMinutes(10));
        s.signal.reset();

        Job changed = update.update(job.id(), patch(values(null, null, "*/5 * * * *", null, null, null), "cron_expr"),
                false);

        assertThat(changed.spec().cronExpr()).isEqualTo("*/5 * * * *");
        assertThat(changed.nextRunAt()).isEqualTo(Instant.parse("2026-01-15T10:15:00Z"));
        assertThat(changed.updatedAt()).isEqualTo(s.clock.instant());
        assertThat(s.signal.count()).isEqualTo(1);
    }

    @Test
    void aChangeThatDoesNotMoveTheScheduleKeepsTheNextRunAndKeptPendingRunsWakeNobody() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));
        s.signal.reset();

        Job changed = update.update(job.id(), patch(values("renamed", null, null, null, null, 2), "name", "priority"),
                true);

        assertThat(changed.nextRunAt()).isEqualTo(job.nextRunAt());
        assertThat(changed.spec().name()).isEqualTo("renamed");
        assertThat(s.signal.count()).isZero();
    }

    @Test
    void aPausedJobStaysPausedWithoutANextRun() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));
        s.pauseJob().pause(job.id());

        Job changed = update.update(job.id(), patch(values(null, null, "0 4 * * *", null, "Europe/Berlin", null),
                "cron_expr", "timezone"), false);

        assertThat(changed.status()).isEqualTo(JobStatus.PAUSED);
        assertThat(changed.nextRunAt()).isNull();
        assertThat(changed.spec().timezone()).isEqualTo("Europe/Berlin");
    }

    @Test
    void aOneOffRunMovesWithRunAtAndARunAtInThePastMeansNow() {
        Instant later = Scenario.START.plus(Duration.ofHours(2));
        Job job = s.submit(aDraft().runAt(Scenario.START.plus(Duration.ofHours(1))));
        s.signal.reset();

        Job moved = update.update(job.id(), patch(values(null, null, null, later, null, null), "run_at"), true);
        assertThat(moved.nextRunAt()).isEqualTo(later);
        assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(later);
        assertThat(s.signal.count()).as("not due yet, pending runs kept").isZero();

        Job now = update.update(job.id(), patch(values(null, null, null, Scenario.START.minusSeconds(60), null, null),
                "run_at"), true);
        assertThat(now.nextRunAt()).isEqualTo(s.clock.instant());
        assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(s.clock.instant());
        assertThat(s.signal.count()).as("due now").isEqualTo(1);
    }

    @Test
    void aCompletedOneOffKeepsItsStatusAndNoNextRun() {
        Job job = s.submit(aDraft());
        Run run = s.claim("w1");
        s.end(run, RunStatus.SUCCEEDED);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);

        Job changed = update.update(job.id(), patch(values(null, null, null, null, null, null), "run_at"), false);

        assertThat(changed.status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(changed.nextRunAt()).isNull();
    }

    @Test
    void theExecutorValidatesANewPayloadAndCronIsChecked() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));

        assertThatThrownBy(() -> update.update(job.id(), patch(values(null, Map.of("bad", 1), null, null, null, null),
                "payload"), false)).isInstanceOf(ValidationException.class)
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("payload.bad");
        assertThatThrownBy(() -> update.update(job.id(), patch(values(null, null, "61 * * * *", null, null, null),
                "cron_expr"), false)).isInstanceOf(ValidationException.class)
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("cron_expr");
        assertThatThrownBy(() -> update.update(job.id(), patch(values(null, null, "0 0 30 2 *", null, null, null),
                "cron_expr"), false)).hasMessageContaining("never fires");
        assertThat(s.job(job.id()).spec()).isEqualTo(job.spec());
    }

    @Test
    void cancelledDeletedAndMissingJobsCannotChange() {
        Job cancelled = s.submit(aRecurringDraft("0 3 * * *"));
        s.cancelJob().cancel(cancelled.id());
        Job deleted = s.submit(aRecurringDraft("0 3 * * *"));
        new DeleteJob(s.store.jobs()).delete(deleted.id(), false, false);
        JobPatch rename = patch(values("x", null, null, null, null, null), "name");

        assertThatThrownBy(() -> update.update(cancelled.id(), rename, false)).isInstanceOf(ConflictException.class)
                .hasMessageContaining("cancelled");
        assertThatThrownBy(() -> update.update(deleted.id(), rename, false)).isInstanceOf(ConflictException.class)
                .hasMessageContaining("deleted");
        assertThatThrownBy(() -> update.update("missing", rename, false)).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aLostCompareAndSetIsRetriedOnTheJobAsItIsNow() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));
        AtomicInteger lost = new AtomicInteger(2);
        JobRepository racing = new Racing(s.store.jobs(), lost);
        UpdateJob raced = new UpdateJob(racing, s.executors, s.cron, s.signal, s.clock);

        Job changed = raced.update(job.id(), patch(values("third time", null, null, null, null, null), "name"), false);

        assertThat(changed.spec().name()).isEqualTo("third time");
        assertThat(lost.get()).isZero();
    }

    @Test
    void aJobThatKeepsChangingIsAConflictInTheEnd() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));
        AtomicInteger lost = new AtomicInteger(UpdateJob.ROUNDS);
        UpdateJob raced = new UpdateJob(new Racing(s.store.jobs(), lost), s.executors, s.cron, s.signal, s.clock);

        assertThatThrownBy(() -> raced.update(job.id(), patch(values("x", null, null, null, null, null), "name"), false))
                .isInstanceOf(ConflictException.class).hasMessageContaining("kept changing");
    }

    @Test
    void pendingRunsFollowByDefault() {
        Job job = s.submit(aRecurringDraft("0 3 * * *"));
        Run pending = s.triggerJob().trigger(job.id());

        update.update(job.id(), patch(values(null, null, null, null, null, 1), "priority"), false);

        assertThat(s.run(pending.id()).priority()).isEqualTo(1);
        assertThat(s.run(pending.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    /** A repository whose first {@code lost} updates lose their race to another change. */
    static final class Racing extends InterleavingJobRepositoryAccess {
        Racing(JobRepository delegate, AtomicInteger lost) {
            super(delegate, lost);
        }
    }
}
