package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The acknowledger's {@link Acknowledger#runOnce()} on a test ticker: a write "takes" the time the fake queue moves
 * the ticker by, and the pause for company (linger) is made on the ticker, so its length is read exactly.
 */
class AcknowledgerTest {
    static final Duration WRITE_TAKES = Duration.ofMillis(50);

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final TestTicker ticker = new TestTicker();
    final RecordingListener listener = new RecordingListener();
    Worker worker;

    @AfterEach
    void stop() {
        queue.recover();
        if (worker != null) {
            worker.stop();
        }
    }

    Acknowledger acknowledger(BatchPacer pacer) {
        worker = new Worker(WorkerTest.settings(2, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofMillis(200)),
                queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(), listener, new BatchPacer(0, 0, 0),
                pacer, ticker);
        queue.duringAcknowledge = () -> ticker.advance(WRITE_TAKES);
        return worker.acknowledger();
    }

    /** A success of a run claimed by w1, waiting to be written. */
    Acknowledgement success(Acknowledger acks) {
        s.submit(aDraft());
        Run run = s.claim("w1");
        Acknowledgement ack = new Acknowledgement(Scenario.fence(run), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED,
                Duration.ZERO, "ok", null);
        acks.offer(ack, run.jobId());
        return ack;
    }

    @Test
    void afterAWriteThatTook50MillisecondsTheNextBatchWaits200ForCompany() {
        Acknowledger acks = acknowledger(new BatchPacer(4, Duration.ofMinutes(1).toNanos(), 0));
        success(acks);
        assertThat(acks.runOnce()).isEqualTo(1);
        assertThat(ticker.parkedSinceLast()).as("the first batch does not wait").isZero();
        success(acks);
        success(acks);

        assertThat(acks.runOnce()).isEqualTo(2);

        assertThat(ticker.parkedSinceLast()).isEqualTo(WRITE_TAKES.multipliedBy(4));
        assertThat(queue.acknowledgementBatches).containsExactly(1, 2);
    }

    @Test
    void aFullBatchWaitingEndsThePauseAtOnce() {
        Acknowledger acks = acknowledger(new BatchPacer(4, Duration.ofMinutes(1).toNanos(), 0));
        success(acks);
        acks.runOnce();
        for (int i = 0; i < Acknowledger.MAX_ACK_BATCH; i++) {
            success(acks);
        }

        assertThat(acks.runOnce()).isEqualTo(Acknowledger.MAX_ACK_BATCH);

        assertThat(ticker.parkedSinceLast()).isZero();
    }

    @Test
    void theDrainEndsThePause() {
        Acknowledger acks = acknowledger(new BatchPacer(4, Duration.ofMinutes(1).toNanos(), 0));
        success(acks);
        acks.runOnce();
        success(acks);

        acks.hurry();

        assertThat(acks.runOnce()).isEqualTo(1);
        assertThat(ticker.parkedSinceLast()).isZero();
    }

    @Test
    void nothingWaitingWritesNothing() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));

        assertThat(acks.runOnce()).isZero();
        assertThat(queue.acknowledgementBatches).isEmpty();
    }

    @Test
    void resultsTheDatabaseTookNoneOfWaitAgainFirstInTheirOrderAndStillCount() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        List<Acknowledgement> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(success(acks));
        }
        queue.acknowledgementsFail = true;

        assertThatThrownBy(acks::runOnce).hasMessageContaining("took none of 3");

        assertThat(acks.unacknowledged()).isEqualTo(3);
        assertThat(acks.awaiting()).containsExactlyInAnyOrderElementsOf(sent.stream().map(Acknowledgement::fence).toList());
        queue.recover();
        assertThat(acks.runOnce()).isEqualTo(3);
        assertThat(queue.acknowledgementsSent.subList(queue.acknowledgementsSent.size() - 3,
                queue.acknowledgementsSent.size())).containsExactlyElementsOf(sent);
        assertThat(acks.unacknowledged()).isZero();
    }

    @Test
    void aPoisonedAcknowledgementIsStoredWithoutItsOutputAndTheOthersAsTheyAre() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        success(acks);
        s.submit(aDraft());
        Run binary = s.claim("w1");
        acks.offer(new Acknowledgement(Scenario.fence(binary), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED,
                Duration.ZERO, "\u0000binary", null), binary.jobId());
        success(acks);
        queue.refusesNulLikePostgres = true;

        assertThat(acks.runOnce()).isEqualTo(3);

        assertThat(s.store.allRuns()).extracting(Run::status).containsOnly(RunStatus.SUCCEEDED);
        assertThat(s.run(binary.id()).output()).isEmpty();
        assertThat(s.attemptsOf(binary.id())).singleElement().satisfies(a -> assertThat(a.error())
                .isEqualTo("the attempt's result could not be stored: IllegalStateException"));
    }

    @Test
    void theWorkerIsBehindOnceAsManyResultsWaitAsItMayHold() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        for (int i = 0; i < Acknowledger.MAX_UNACKNOWLEDGED - 1; i++) {
            success(acks);
        }
        assertThat(acks.behind()).isFalse();

        success(acks);

        assertThat(acks.behind()).isTrue();
        acks.runOnce();
        assertThat(acks.behind()).isFalse();
    }

    @Test
    void writingResultsWakesAClaimerThatWaitsForRoom() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        success(acks);
        worker.wakeUp().wantRoom(true);

        acks.runOnce();

        assertThat(worker.wakeUp().woken()).isTrue();
    }

    @Test
    void aSingleResultAlreadyStrippedOfItsOutputIsNotTriedAgainAloneWhenRefused() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        s.submit(aDraft());
        Run run = s.claim("w1");
        acks.offer(new Acknowledgement(Scenario.fence(run), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED,
                Duration.ZERO, "", "the attempt's result could not be stored: IllegalStateException"), run.jobId());
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        queue.duringAcknowledge = tries::incrementAndGet;
        queue.acknowledgementsFail = true;

        assertThatThrownBy(acks::runOnce).hasMessageContaining("took none of 1");

        assertThat(tries.get()).isEqualTo(1);
    }

    @Test
    void aSingleResultRefusedIsTriedAloneThenWithoutItsOutput() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        success(acks);
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        queue.duringAcknowledge = tries::incrementAndGet;
        queue.acknowledgementsFail = true;

        assertThatThrownBy(acks::runOnce).hasMessageContaining("took none of 1");

        assertThat(tries.get()).as("as a batch, alone, alone without output").isEqualTo(3);
    }

    @Test
    void theDrainGivesBackTheRunsItStoppedAndThoseStillHeldOnce() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        s.submit(aDraft());
        s.submit(aDraft());
        Run stopped = s.claim("w1");
        Run stillHeld = s.claim("w1");
        acks.released(Scenario.fence(stopped), stopped.jobId());
        assertThat(acks.awaiting()).containsExactly(Scenario.fence(stopped));

        acks.drain(java.util.Map.of(Scenario.fence(stillHeld), stillHeld.jobId()));
        acks.drain(java.util.Map.of());

        assertThat(queue.released).containsExactlyInAnyOrder(Scenario.fence(stopped), Scenario.fence(stillHeld));
        assertThat(s.run(stopped.id()).status()).isEqualTo(RunStatus.PENDING);
        assertThat(s.run(stillHeld.id()).status()).isEqualTo(RunStatus.PENDING);
        assertThat(acks.awaiting()).isEmpty();
    }

    @Test
    void theDrainDropsResultsItCannotWriteAndStillGivesRunsBack() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        success(acks);
        s.submit(aDraft());
        Run stopped = s.claim("w1");
        acks.released(Scenario.fence(stopped), stopped.jobId());
        queue.acknowledgementsFail = true;

        acks.drain(java.util.Map.of());

        assertThat(acks.unacknowledged()).isZero();
        assertThat(acks.awaiting()).isEmpty();
        assertThat(s.run(stopped.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    @Test
    void aLateAcknowledgementIsReportedAsAFenceLost() {
        Acknowledger acks = acknowledger(new BatchPacer(0, 0, 0));
        Acknowledgement ack = success(acks);
        s.store.queue().release(List.of(ack.fence()));

        assertThat(acks.runOnce()).isEqualTo(1);

        assertThat(listener.fencesLost).containsExactly(new RecordingListener.FenceLost(ack.fence(), "late acknowledgement"));
        assertThat(acks.awaiting()).isEmpty();
    }
}
