package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TriggerJobTest {
    final Scenario s = new Scenario();
    final TriggerJob trigger = s.triggerJob();

    @Test
    void triggeringEnqueuesAPendingRunDueNowWhateverTheScheduleAndWakesTheWorkers() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *").withExecutor("http")
                .withPayload(Map.of("url", "https://example.com")).withPriority(3).withMaxAttempts(4)
                .withTimeoutSeconds(9));
        s.advance(Duration.ofMinutes(2));

        Run run = trigger.trigger(job.id());

        assertThat(run.status()).isEqualTo(RunStatus.PENDING);
        assertThat(run.scheduledFor()).isEqualTo(s.clock.instant());
        assertThat(run.createdAt()).isEqualTo(s.clock.instant());
        assertThat(run.jobId()).isEqualTo(job.id());
        assertThat(run.executor()).isEqualTo("http");
        assertThat(run.payload()).isEqualTo(Map.of("url", "https://example.com"));
        assertThat(run.priority()).isEqualTo(3);
        assertThat(run.maxAttempts()).isEqualTo(4);
        assertThat(run.timeoutSeconds()).isEqualTo(9);
        assertThat(s.onlyRunOf(job.id())).isEqualTo(run);
        assertThat(s.signal.count()).isEqualTo(1);
        assertThat(s.job(job.id())).as("the schedule is untouched").isEqualTo(job);
    }

    @Test
    void eachTriggerEnqueuesAnotherRun() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));

        Run first = trigger.trigger(job.id());
        Run second = trigger.trigger(job.id());

        assertThat(first.id()).isNotEqualTo(second.id());
        assertThat(s.runsOf(job.id())).hasSize(2);
    }

    @Test
    void aPausedJobCanStillBeTriggeredByHandAndStaysPaused() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        s.pauseJob().pause(job.id());

        Run run = trigger.trigger(job.id());

        assertThat(run.status()).isEqualTo(RunStatus.PENDING);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.PAUSED);
    }

    @Test
    void aCompletedOneOffJobCanBeTriggeredAgain() {
        Job job = s.submit(aDraft());
        s.claimAndEnd(s.onlyRunOf(job.id()), RunStatus.SUCCEEDED);

        Run again = trigger.trigger(job.id());

        assertThat(again.status()).isEqualTo(RunStatus.PENDING);
        assertThat(s.runsOf(job.id())).hasSize(2);
    }

    @Test
    void triggeringACancelledJobIsAConflictAndEnqueuesNothing() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        s.cancelJob().cancel(job.id());

        assertThatThrownBy(() -> trigger.trigger(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("cancelled");
        assertThat(s.runsOf(job.id())).isEmpty();
        assertThat(s.signal.count()).isZero();
    }

    @Test
    void triggeringAnUnknownJobIsNotFound() {
        assertThatThrownBy(() -> trigger.trigger(Ids.newId(s.clock.instant()))).isInstanceOf(NotFoundException.class);
        assertThat(s.store.allRuns()).isEmpty();
    }
}
