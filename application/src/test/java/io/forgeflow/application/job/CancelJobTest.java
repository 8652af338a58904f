package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CancelJobTest {
    final Scenario s = new Scenario();
    final CancelJob cancel = s.cancelJob();

    @Test
    void cancellingAnActiveJobEndsItsScheduleCancelsPendingRunsAndAsksRunningOnesToStop() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        Run running = s.triggerJob().trigger(job.id());
        s.claim("w1");
        Run pending = s.triggerJob().trigger(job.id());
        s.advance(Duration.ofSeconds(5));

        Job cancelled = cancel.cancel(job.id());

        assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(cancelled.nextRunAt()).isNull();
        assertThat(cancelled.updatedAt()).isEqualTo(s.clock.instant());
        assertThat(s.run(pending.id()).status()).isEqualTo(RunStatus.CANCELLED);
        Run stillRunning = s.run(running.id());
        assertThat(stillRunning.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(stillRunning.cancelRequested()).isTrue();
        RunQueue.Heartbeat beat = s.store.queue().heartbeat("w1", Scenario.LEASE);
        assertThat(beat.cancelRequested()).containsExactly(running.id());
    }

    @Test
    void aCancelledJobFiresNoMoreTicks() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        cancel.cancel(job.id());
        s.advance(Duration.ofHours(1));

        assertThat(s.store.jobs().dueJobs(10).jobs()).isEmpty();
    }

    @Test
    void aPausedJobCanBeCancelled() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        s.pauseJob().pause(job.id());

        assertThat(cancel.cancel(job.id()).status()).isEqualTo(JobStatus.CANCELLED);
    }

    @Test
    void cancellingACancelledJobChangesNothing() {
        Job job = s.submit(aDraft());
        Job cancelled = cancel.cancel(job.id());
        s.advance(Duration.ofMinutes(1));

        assertThat(cancel.cancel(job.id())).isEqualTo(cancelled);
        assertThat(s.job(job.id())).isEqualTo(cancelled);
    }

    @Test
    void cancellingACompletedJobIsAConflict() {
        Job job = s.submit(aDraft());
        s.claimAndEnd(s.onlyRunOf(job.id()), RunStatus.SUCCEEDED);

        assertThatThrownBy(() -> cancel.cancel(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("completed");
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
    }

    @Test
    void cancellingAnUnknownJobIsNotFound() {
        assertThatThrownBy(() -> cancel.cancel(Ids.newId(s.clock.instant()))).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aCancellationThatRacesACompletionIsAConflict() {
        InterleavingJobRepository jobs = new InterleavingJobRepository(s.store.jobs());
        Job job = s.submit(aDraft());
        Run running = s.claim("w1");
        jobs.beforeNextChangeStatus(() -> s.end(running, RunStatus.SUCCEEDED));

        assertThatThrownBy(() -> new CancelJob(jobs).cancel(job.id())).isInstanceOf(ConflictException.class);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
    }
}
