package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.application.testkit.FakeExecutor;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The worker and the rescuer publish the run changes they made, from what the queue returned, with the fields the
 * event stream shows: the run, its job, the new status, the attempt, the worker concerned, when.
 */
class WorkerRunEventsTest {
    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final Recording events = new Recording();
    final RunChanges changes = new RunChanges(events, s.clock);
    final Worker worker = new Worker(WorkerTest.settings(2, Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ZERO), queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(), null,
            new BatchPacer(0, 0, 0), new BatchPacer(0, 0, 0), Ticker.SYSTEM, changes);

    @AfterEach
    void stop() {
        worker.stop();
    }

    @Test
    void aClaimThenAnAcknowledgementPublishRunningThenTheNewStatus() {
        Run run = s.onlyRunOf(s.submit(aDraft()).id());

        worker.claimOnce();
        Await.until("the run ended", () -> worker.busySlots() == 0);
        worker.flushAcknowledgements();

        assertThat(events.published).containsExactly(
                new RunChange(run.id(), run.jobId(), RunStatus.RUNNING, 1, "w1", s.clock.instant()),
                new RunChange(run.id(), run.jobId(), RunStatus.SUCCEEDED, 1, "w1", s.clock.instant()));
    }

    @Test
    void aLateAcknowledgementPublishesNothing() {
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        worker.claimOnce();
        Await.until("the run ended", () -> worker.busySlots() == 0);
        s.store.queue().release(List.of(Scenario.fence(s.run(run.id())))); // given back meanwhile
        events.published.clear();

        assertThat(worker.flushAcknowledgements()).isEqualTo(1);

        assertThat(events.published).isEmpty();
    }

    @Test
    void aRetryAndAReleasePublishPendingWithTheWorkerThatHeldTheRun() {
        s.shell.byDefault(ctx -> ctx.payload().containsKey("fail") ? ExecutionResult.failed("", "boom")
                : FakeExecutor.untilCancelled().apply(ctx));
        Run failing = s.onlyRunOf(s.submit(aDraft().withPayload(java.util.Map.of("fail", true))).id());
        Run held = s.onlyRunOf(s.submit(aDraft()).id());
        worker.claimOnce();
        Await.until("the failing run ended", () -> worker.busySlots() == 1);
        worker.flushAcknowledgements();

        worker.stop();                                       // a drain grace of zero: the held run is released

        assertThat(events.published).extracting(RunChange::runId, RunChange::status, RunChange::workerId)
                .containsExactlyInAnyOrder(tuple(failing.id(), RunStatus.RUNNING, "w1"),
                        tuple(held.id(), RunStatus.RUNNING, "w1"),
                        tuple(failing.id(), RunStatus.PENDING, "w1"),
                        tuple(held.id(), RunStatus.PENDING, "w1"));
    }

    @Test
    void aRecoveryPublishesTheDecidedStatusWithTheWorkerThatVanished() {
        s.submit(aDraft().withMaxAttempts(1));
        Run crashed = s.claim("gone");
        s.advance(Duration.ofSeconds(31));
        LeaseRescuer rescuer = new LeaseRescuer(s.store.queue(), FakeLeaderElection.leading(),
                new OutcomePolicy(WorkerTest.RETRY, new SplittableRandom(1)), changes, null);

        assertThat(rescuer.runOnce()).isEqualTo(1);

        assertThat(events.published).containsExactly(
                new RunChange(crashed.id(), crashed.jobId(), RunStatus.DEAD, 1, "gone", s.clock.instant()));
    }

    static final class Recording implements RunEvents {
        final List<RunChange> published = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void publish(List<RunChange> changes) {
            published.addAll(changes);
        }

        @Override
        public AutoCloseable subscribe(Listener listener) {
            return () -> { };
        }
    }
}
