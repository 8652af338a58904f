package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeleteJobTest {
    final Scenario s = new Scenario();
    final DeleteJob delete = new DeleteJob(s.store.jobs());

    @Test
    void aDeletedJobIsATombstoneWhosePendingRunsAreCancelled() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        Run pending = s.triggerJob().trigger(job.id());

        Job deleted = delete.delete(job.id(), false, false).orElseThrow();

        assertThat(deleted.status()).isEqualTo(JobStatus.DELETED);
        assertThat(deleted.nextRunAt()).isNull();
        assertThat(s.run(pending.id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(s.store.jobs().list(null, 10, null).items()).isEmpty();
        assertThat(s.store.jobs().find(job.id())).contains(deleted);
        assertThat(delete.delete(job.id(), false, false)).as("again: nothing changes").contains(deleted);
        assertThatThrownBy(() -> s.triggerJob().trigger(job.id())).isInstanceOf(ConflictException.class)
                .hasMessageContaining("deleted");
    }

    @Test
    void aRunningRunStopsTheDeletionUnlessItIsCancelled() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        Run running = s.triggerJob().trigger(job.id());
        s.claim("w1");

        assertThatThrownBy(() -> delete.delete(job.id(), false, false)).isInstanceOf(ConflictException.class)
                .extracting(e -> ((ConflictException) e).code()).isEqualTo(ConflictException.JOB_RUNNING);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.ACTIVE);

        assertThat(delete.delete(job.id(), true, false)).get().extracting(Job::status).isEqualTo(JobStatus.DELETED);
        assertThat(s.run(running.id()).cancelRequested()).isTrue();
    }

    @Test
    void aPurgeRemovesTheJobAndItsRunsAlsoWhenAlreadyDeleted() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        Run pending = s.triggerJob().trigger(job.id());
        Job other = s.submit(aRecurringDraft("*/5 * * * *"));
        delete.delete(other.id(), false, false);

        assertThat(delete.delete(job.id(), false, true)).isEqualTo(Optional.empty());
        assertThat(delete.delete(other.id(), false, true)).isEmpty();

        assertThat(s.store.jobs().find(job.id())).isEmpty();
        assertThat(s.store.jobs().find(other.id())).isEmpty();
        assertThat(s.store.runs().find(pending.id())).isEmpty();
        assertThatThrownBy(() -> delete.delete(job.id(), false, false)).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aCompletedOrCancelledJobCanBeDeleted() {
        Job cancelled = s.submit(aRecurringDraft("*/5 * * * *"));
        s.cancelJob().cancel(cancelled.id());

        assertThat(delete.delete(cancelled.id(), false, false)).get().extracting(Job::status)
                .isEqualTo(JobStatus.DELETED);
    }
}
