package io.forgeflow.application.trace;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.job.CancelJob;
import io.forgeflow.application.job.DeleteJob;
import io.forgeflow.application.job.PauseJob;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.application.testkit.RecordingTracing;
import io.forgeflow.application.testkit.RecordingTracing.RunSpan;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/** Runs that end without a worker's acknowledgement record their {@code forgeflow.run} span once, where they end. */
class RunSpansTest {
    static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    final Scenario s = new Scenario();
    final RecordingTracing tracing = new RecordingTracing();

    LeaseRescuer rescuer() {
        return new LeaseRescuer(s.store.queue(), FakeLeaderElection.leading(),
                new OutcomePolicy(RETRY, new SplittableRandom(1)), RunChanges.NONE, null, s.store.runs(), tracing);
    }

    @Test
    void theRescuerRecordsARunItMakesDeadButNotOneItSendsBackToPending() {
        s.submit(aDraft().withMaxAttempts(1));
        Run dies = s.claim("gone");
        s.submit(aDraft().withMaxAttempts(2));
        Run retried = s.claim("gone");
        s.advance(Duration.ofSeconds(31));

        assertThat(rescuer().runOnce()).isEqualTo(2);

        assertThat(s.run(retried.id()).status()).isEqualTo(RunStatus.PENDING);
        assertThat(tracing.runSpans).singleElement().satisfies(span -> {
            assertThat(span.runId()).isEqualTo(dies.id());
            assertThat(span.status()).isEqualTo(RunStatus.DEAD);
            assertThat(span.error()).isNotBlank();
        });
        assertThat(rescuer().runOnce()).isZero();
        assertThat(tracing.runSpans).hasSize(1);
    }

    @Test
    void theRescuerRecordsARunItCancelsAsAnOperatorAsked() {
        Job job = s.submit(aDraft().withMaxAttempts(3));
        Run held = s.claim("gone");
        new CancelRun(s.store.runs(), tracing).cancel(held.id()); // asks the (dead) worker: no end yet
        assertThat(tracing.runSpans).isEmpty();
        s.advance(Duration.ofSeconds(31));

        rescuer().runOnce();

        assertThat(tracing.runSpans).containsExactly(new RunSpan(held.id(), RunStatus.CANCELLED,
                s.run(held.id()).error()));
        assertThat(s.onlyRunOf(job.id()).status()).isEqualTo(RunStatus.CANCELLED);
    }

    @Test
    void anOperatorsCancelOfAPendingRunRecordsItOnce() {
        Job job = s.submit(aDraft());
        Run pending = s.onlyRunOf(job.id());
        CancelRun cancel = new CancelRun(s.store.runs(), tracing);

        cancel.cancel(pending.id());
        cancel.cancel(pending.id()); // already cancelled: nothing ends

        assertThat(tracing.runSpans).containsExactly(new RunSpan(pending.id(), RunStatus.CANCELLED,
                "cancelled by an operator"));
    }

    @Test
    void pauseCancelAndDeleteOfAJobRecordTheRunsTheyCancel() {
        Job paused = s.submit(aDraft());
        Job cancelled = s.submit(aDraft());
        Job deleted = s.submit(aDraft());

        new PauseJob(s.store.jobs(), tracing).pause(paused.id());
        new CancelJob(s.store.jobs(), tracing).cancel(cancelled.id());
        new DeleteJob(s.store.jobs(), tracing).delete(deleted.id(), false, false);

        assertThat(tracing.runSpans).extracting(RunSpan::runId, RunSpan::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(s.onlyRunOf(paused.id()).id(), RunStatus.CANCELLED),
                org.assertj.core.groups.Tuple.tuple(s.onlyRunOf(cancelled.id()).id(), RunStatus.CANCELLED),
                org.assertj.core.groups.Tuple.tuple(s.onlyRunOf(deleted.id()).id(), RunStatus.CANCELLED));
    }

    @Test
    void aJobCancelAsksRunningRunsToStopWithoutRecordingThem() {
        Job job = s.submit(aDraft());
        s.claim("w1");

        new CancelJob(s.store.jobs(), tracing).cancel(job.id());

        assertThat(tracing.runSpans).isEmpty(); // its worker's acknowledgement (or the rescuer) ends it
    }
}
