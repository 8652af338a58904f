package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.testkit.RecordingTracing;
import io.forgeflow.application.testkit.RecordingTracing.RunSpan;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/** A worker records a run's span when the database took the acknowledgement that ended the run, and only then. */
class AcknowledgerRunSpansTest {
    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final RecordingTracing tracing = new RecordingTracing();
    final Worker worker = new Worker(WorkerTest.settings(), queue, s.executors, s.signal,
            WorkerTest.ExtremeRandom.highest(), new RecordingListener(), new BatchPacer(0, 0, 0),
            new BatchPacer(0, 0, 0), new TestTicker(), RunChanges.NONE, tracing);
    final Acknowledger acks = worker.acknowledger();

    @AfterEach
    void stop() {
        queue.recover();
        worker.stop();
    }

    Run claimed() {
        s.submit(aDraft().withMaxAttempts(2));
        return s.claim("w1");
    }

    static Acknowledgement ack(Run run, AttemptOutcome outcome, RunStatus next, String error) {
        return new Acknowledgement(Scenario.fence(run), outcome, next, Duration.ZERO, "", error);
    }

    @Test
    void aWrittenEndRecordsTheRunSpanOnceAndARetryRecordsNone() {
        Run succeeded = claimed();
        Run retried = claimed();
        acks.offer(ack(succeeded, AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, null), succeeded);
        acks.offer(ack(retried, AttemptOutcome.FAILED, RunStatus.PENDING, "exit 1"), retried);
        assertThat(tracing.runSpans).as("nothing before the write").isEmpty();

        assertThat(acks.runOnce()).isEqualTo(2);

        assertThat(tracing.runSpans).containsExactly(new RunSpan(succeeded.id(), RunStatus.SUCCEEDED, null));
    }

    @Test
    void aLateAcknowledgementRecordsNothing() {
        Run run = claimed();
        Acknowledgement dead = ack(run, AttemptOutcome.FAILED, RunStatus.DEAD, "exit 1");
        acks.offer(dead, run);
        s.store.queue().release(List.of(dead.fence())); // the lease was lost meanwhile

        assertThat(acks.runOnce()).isEqualTo(1);

        assertThat(tracing.runSpans).isEmpty();
    }

    @Test
    void anEndWrittenAfterAnOutageIsRecordedOnce() {
        Run run = claimed();
        acks.offer(ack(run, AttemptOutcome.FAILED, RunStatus.DEAD, "exit 1"), run);
        queue.acknowledgementsFail = true;
        try {
            acks.runOnce();
        } catch (IllegalStateException expected) {
            // the database took none: they wait
        }
        assertThat(tracing.runSpans).isEmpty();
        queue.acknowledgementsFail = false;

        assertThat(acks.runOnce()).isEqualTo(1);

        assertThat(tracing.runSpans).containsExactly(new RunSpan(run.id(), RunStatus.DEAD, "exit 1"));
    }
}
