package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A refused job control says what the operator can do instead. */
class JobConflictMessagesTest {
    final Scenario s = new Scenario();

    @Test
    void aCancelledJobSaysCancellationIsPermanent() {
        Job job = s.submit(aRecurringDraft("0 * * * *"));
        s.cancelJob().cancel(job.id());

        assertThatThrownBy(() -> s.pauseJob().pause(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessage("job " + job.id() + " is cancelled and cannot be paused: cancellation is permanent; "
                        + "submit a new job instead");
    }

    @Test
    void aCompletedJobSaysItsRunHasEnded() {
        Job job = s.submit(aDraft());
        s.claimAndEnd(s.onlyRunOf(job.id()), RunStatus.SUCCEEDED);
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);

        assertThatThrownBy(() -> s.pauseJob().pause(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessage("job " + job.id() + " is completed and cannot be paused: its one-off run has ended; "
                        + "trigger it or submit a new job");
    }
}
