package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PauseJobTest {
    final Scenario s = new Scenario();
    final PauseJob pause = s.pauseJob();

    @Nested
    class AnActiveJob {
        @Test
        void becomesPausedWithNothingComing() {
            Job job = s.submit(aRecurringDraft("*/5 * * * *"));
            s.advance(Duration.ofSeconds(30));

            Job paused = pause.pause(job.id());

            assertThat(paused.status()).isEqualTo(JobStatus.PAUSED);
            assertThat(paused.nextRunAt()).isNull();
            assertThat(paused.updatedAt()).isEqualTo(s.clock.instant());
            assertThat(s.job(job.id())).isEqualTo(paused);
        }

        @Test
        void firesNoMoreTicks() {
            Job job = s.submit(aRecurringDraft("*/5 * * * *"));
            pause.pause(job.id());
            s.advance(Duration.ofHours(1));

            assertThat(s.store.jobs().dueJobs(10).jobs()).isEmpty();
        }

        @Test
        void hasItsPendingRunsCancelledButItsRunningRunsLeftToFinish() {
            Job job = s.submit(aRecurringDraft("*/5 * * * *"));
            Run running = s.triggerJob().trigger(job.id());
            s.claim("w1");
            Run pending = s.triggerJob().trigger(job.id());
            Run otherJobsRun = s.onlyRunOf(s.submit(aDraft()).id());

            pause.pause(job.id());

            assertThat(s.run(pending.id()).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(s.run(pending.id()).finishedAt()).isEqualTo(s.clock.instant());
            assertThat(s.run(running.id()).status()).isEqualTo(RunStatus.RUNNING);
            assertThat(s.run(running.id()).cancelRequested()).isFalse();
            assertThat(s.run(otherJobsRun.id()).status()).isEqualTo(RunStatus.PENDING);
        }

        @Test
        void aOneOffJobHasItsPendingRunCancelled() {
            Job job = s.submit(aDraft());

            pause.pause(job.id());

            assertThat(s.onlyRunOf(job.id()).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.PAUSED);
        }
    }

    @Test
    void pausingAPausedJobChangesNothing() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        Job paused = pause.pause(job.id());
        s.advance(Duration.ofMinutes(1));

        Job again = pause.pause(job.id());

        assertThat(again).isEqualTo(paused);
        assertThat(s.job(job.id()).updatedAt()).isEqualTo(paused.updatedAt());
    }

    @Test
    void pausingACompletedJobIsAConflict() {
        Job job = s.submit(aDraft());
        s.claimAndEnd(s.onlyRunOf(job.id()), RunStatus.SUCCEEDED);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);

        assertThatThrownBy(() -> pause.pause(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("completed");
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
    }

    @Test
    void pausingACancelledJobIsAConflict() {
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        s.cancelJob().cancel(job.id());

        assertThatThrownBy(() -> pause.pause(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("cancelled");
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.CANCELLED);
    }

    @Test
    void pausingAnUnknownJobIsNotFound() {
        assertThatThrownBy(() -> pause.pause(Ids.newId(s.clock.instant()))).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> pause.pause("not-an-id")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aPauseThatRacesACancellationIsAConflictAndChangesNothingMore() {
        InterleavingJobRepository jobs = new InterleavingJobRepository(s.store.jobs());
        Job job = s.submit(aRecurringDraft("*/5 * * * *"));
        jobs.beforeNextChangeStatus(() -> s.cancelJob().cancel(job.id()));

        assertThatThrownBy(() -> new PauseJob(jobs).pause(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("changed while this request ran");
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.CANCELLED);
    }
}
