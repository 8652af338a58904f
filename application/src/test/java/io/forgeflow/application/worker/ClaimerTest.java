package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.ClaimHint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claimer's {@link Claimer#runOnce()} on a test ticker: a claim "takes" the time the fake queue moves the ticker
 * by, and the pacing pause is made on the ticker, so its length is read exactly and nothing sleeps.
 */
class ClaimerTest {
    static final Duration MINUTE = Duration.ofMinutes(1);
    static final Duration CLAIM_TAKES = Duration.ofMillis(50);

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final TestTicker ticker = new TestTicker();
    final Gate gate = new Gate();
    Worker worker;

    @AfterEach
    void stop() {
        gate.open();
        if (worker != null) {
            worker.stop();
        }
    }

    /** A four-slot worker on the test ticker whose claims take 50 ms on it. */
    Claimer claimer(BatchPacer pacer) {
        worker = new Worker(WorkerTest.settings(4, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofMillis(200)),
                queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(), WorkerListener.NONE, pacer,
                new BatchPacer(0, 0, 0), ticker);
        queue.duringClaim = () -> ticker.advance(CLAIM_TAKES);
        return worker.claimer();
    }

    @Test
    void afterARoundThatTookEveryDueRunTheNextOneWaitsFourTimesItsDurationOnTheTicker() {
        Claimer claimer = claimer(new BatchPacer(4, MINUTE.toNanos(), 0));
        s.submit(aDraft());

        assertThat(claimer.runOnce()).isEqualTo(new Claimer.Round(1, false, false));
        assertThat(ticker.parkedSinceLast()).as("the first round is not paced").isZero();
        assertThat(claimer.runOnce().claimed()).isZero();

        assertThat(ticker.parkedSinceLast()).isEqualTo(CLAIM_TAKES.multipliedBy(4));
    }

    @Test
    void theTimeSinceTheLastRoundEndedCountsAgainstThePause() {
        Claimer claimer = claimer(new BatchPacer(4, MINUTE.toNanos(), 0));
        claimer.runOnce();
        ticker.advance(Duration.ofMillis(150));

        claimer.runOnce();

        assertThat(ticker.parkedSinceLast()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void thePauseIsCapped() {
        Claimer claimer = claimer(new BatchPacer(4, Duration.ofMillis(5).toNanos(), 0));
        claimer.runOnce();

        claimer.runOnce();

        assertThat(ticker.parkedSinceLast()).isEqualTo(Duration.ofMillis(5));
    }

    /** Runs claimer rounds until the queue has been asked for {@code claims} claims (runs free their slots meanwhile). */
    void claimUntil(Claimer claimer, int claims) {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (queue.hintsGiven.size() < claims) {
            assertThat(System.nanoTime() - until).as("claim %s never asked for", claims).isNegative();
            claimer.runOnce();
            Thread.onSpinWait();
        }
    }

    @Test
    void aClaimThatTookAllItAskedForGivesItsLastRunAsTheNextClaimsHintForASecondOnTheTicker() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        for (int i = 0; i < 200; i++) {
            s.submit(aDraft());
        }

        claimUntil(claimer, 2);
        assertThat(queue.hintsGiven.get(0)).as("the first claim reads from the start").isEmpty();
        assertThat(queue.answers.get(0)).as("it took all it asked for").isNotEmpty();
        assertThat(queue.hintsGiven.get(1)).as("the next starts past its last run")
                .contains(ClaimHint.after(queue.answers.get(0)));

        ticker.advance(Duration.ofNanos(Claimer.HINT_NANOS).minus(CLAIM_TAKES.multipliedBy(2)));
        claimUntil(claimer, 3);
        assertThat(queue.hintsGiven.get(2)).as("a second after the first hinted claim: still past the hint")
                .contains(ClaimHint.after(queue.answers.get(1)));

        ticker.advance(Duration.ofNanos(1));
        claimUntil(claimer, 4);
        assertThat(queue.hintsGiven.get(3)).as("more than a second on the ticker: from the start again").isEmpty();
    }

    @Test
    void aClaimThatCameUpShortLeavesTheNextOneToReadFromTheStart() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        s.submit(aDraft());
        claimUntil(claimer, 1);
        assertThat(queue.answers.get(0)).hasSize(1);

        s.submit(aDraft());
        claimUntil(claimer, 2);

        assertThat(queue.hintsGiven.get(1)).isEmpty();
    }

    @Test
    void aRoundThatFilledALaneIsFollowedAtOnce() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
        Claimer claimer = claimer(new BatchPacer(4, MINUTE.toNanos(), 0));
        for (int i = 0; i < 6; i++) {
            s.submit(aDraft());
        }

        assertThat(claimer.runOnce()).as("four slots, six due runs: there may be more")
                .isEqualTo(new Claimer.Round(4, true, false));
        assertThat(claimer.runOnce()).as("no room: the lane is held back").isEqualTo(new Claimer.Round(0, false, true));
        assertThat(claimer.runOnce()).isEqualTo(new Claimer.Round(0, false, true));

        assertThat(ticker.parkedSinceLast()).as("neither round took every due run it saw").isZero();
    }

    @Test
    void belowTheRateThresholdTheClaimerNeverWaits() {
        Claimer claimer = claimer(new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS,
                Claimer.PACE_CLAIMS_ABOVE_PER_SECOND));
        for (int i = 0; i < 3; i++) {
            s.submit(aDraft());
            claimer.runOnce();
            Await.until("the run ended", () -> worker.busySlots() == 0);
            ticker.advance(Duration.ofMillis(100)); // ten runs a second
        }

        assertThat(ticker.parkedSinceLast()).isZero();
    }

    @Test
    void aDrainingClaimerAsksForNothing() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        s.submit(aDraft());
        claimer.stopClaiming();

        assertThat(claimer.runOnce().claimed()).isZero();
        assertThat(queue.claims.get()).isZero();
    }

    /** Runs one attempt that takes {@code millis} on the ticker, alone, and waits for it to end. */
    void anAttemptTaking(Claimer claimer, long millis) {
        s.shell.thenAnswer(ctx -> {
            ticker.advance(Duration.ofMillis(millis));
            return ExecutionResult.succeeded("");
        });
        s.submit(aDraft());
        assertThat(claimer.claimRound().claimed()).isEqualTo(1);
        Await.until("the attempt ended", () -> worker.busySlots() == 0);
    }

    @Test
    void attemptDurationsAreAveragedNineTenthsOldOneTenthNew() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        queue.duringClaim = null;

        anAttemptTaking(claimer, 100);
        assertThat(worker.slots().averageMillis()).isEqualTo(100.0);
        anAttemptTaking(claimer, 10);
        assertThat(worker.slots().averageMillis()).isCloseTo(91.0, org.assertj.core.data.Offset.offset(1e-9));
        anAttemptTaking(claimer, 500);

        assertThat(worker.slots().averageMillis()).isCloseTo(131.9, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void attemptsOfFiftyMillisecondsOnAverageHoldNoRunReadyAndJustUnderHoldOneBatch() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        queue.duringClaim = null;
        assertThat(claimer.roomToClaim(0)).as("nothing known yet: the free slots").isEqualTo(4);

        anAttemptTaking(claimer, 50);
        assertThat(claimer.roomToClaim(0)).isEqualTo(4);
        Worker again = worker;
        claimer = claimer(new BatchPacer(0, 0, 0));
        again.stop();
        queue.duringClaim = null;
        anAttemptTaking(claimer, 49);

        assertThat(claimer.roomToClaim(0)).isEqualTo(8);
    }

    @Test
    void attemptsOfOneMillisecondOnAverageHoldOneBatchAndJustUnderHoldThree() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        queue.duringClaim = null;
        anAttemptTaking(claimer, 1);
        assertThat(claimer.roomToClaim(0)).isEqualTo(8);
        Worker again = worker;
        claimer = claimer(new BatchPacer(0, 0, 0));
        again.stop();
        queue.duringClaim = null;

        anAttemptTaking(claimer, 0);

        assertThat(claimer.roomToClaim(0)).isEqualTo(16);
    }

    @Test
    void aWakeUpThatCameDuringThePauseIsForgottenByTheRoundAfterIt() {
        Claimer claimer = claimer(new BatchPacer(4, MINUTE.toNanos(), 0));
        claimer.runOnce();
        WakeUp wakeUp = wakeUpOf(claimer);
        wakeUp.wake();

        claimer.runOnce();                                   // paused, then claimed: saw every run due meanwhile

        assertThat(wakeUp.woken()).isFalse();
    }

    @Test
    void aRoundThatFailsLeavesTheClaimerWantingRoom() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        claimer.runOnce();
        assertThat(wakeUpOf(claimer).roomWanted()).as("it took every due run it saw").isFalse();
        s.submit(aDraft());
        queue.nextClaimReplyLost = true;

        org.assertj.core.api.Assertions.assertThatThrownBy(claimer::runOnce).hasMessageContaining("reply was lost");

        assertThat(wakeUpOf(claimer).roomWanted()).isTrue();
    }

    @Test
    void stoppingTheClaimerClosesItsWakeUps() {
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        assertThat(wakeUpOf(claimer).closed()).isFalse();

        claimer.stopClaiming();

        assertThat(wakeUpOf(claimer).closed()).isTrue();
    }

    WakeUp wakeUpOf(Claimer claimer) {
        return worker.wakeUp();
    }

    @Test
    void aClaimedRunsLocalDeadlineCountsFromWhenTheClaimWasAsked() {
        s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
        Claimer claimer = claimer(new BatchPacer(0, 0, 0));
        s.submit(aDraft());
        claimer.runOnce();                                      // asked at 0, answered at 50 ms
        Await.until("the run is executing", () -> gate.entered() == 1);

        ticker.advance(Duration.ofSeconds(20).minus(CLAIM_TAKES).minusNanos(1));
        assertThat(worker.leases().enforceDeadlines()).isZero();
        ticker.advance(Duration.ofNanos(1));

        assertThat(worker.leases().enforceDeadlines()).as("lease 30 s less one 10 s interval, from the ask").isEqualTo(1);
    }
}
