package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claimer's and the acknowledger's pauses for company ({@link BatchPacer}), with pacers that pause for a minute
 * after any statement, so that what happens during a pause can be seen; the worker's own pacers are tested in
 * {@link BatchPacerTest}, and a worker with them picks up runs at once at low rates ({@link WorkerTest}).
 */
class WorkerPacingTest {
    static final long MINUTE = Duration.ofMinutes(1).toNanos();

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    Worker worker;

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.stop();
        }
    }

    /** A pacer that waits a minute after every statement, whatever the rate. */
    static BatchPacer aMinuteAfterEach() {
        return new BatchPacer(1e12, MINUTE, 0);
    }

    static BatchPacer never() {
        return new BatchPacer(0, 0, 0);
    }

    Worker start(BatchPacer claims, BatchPacer acks) {
        worker = new Worker(WorkerTest.settings(4, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofMillis(200)), queue, s.executors, s.signal, WorkerTest.ExtremeRandom.highest(),
                WorkerListener.NONE, claims, acks);
        worker.start();
        return worker;
    }

    /** Checks {@code condition} for {@code window}: it must hold every time. */
    static void holdsFor(String what, Duration window, BooleanSupplier condition) {
        long end = System.nanoTime() + window.toNanos();
        while (System.nanoTime() - end < 0) {
            assertThat(condition.getAsBoolean()).as(what).isTrue();
            LockSupport.parkNanos(10_000_000L);
        }
    }

    @Test
    void resultsThatFinishDuringTheAcknowledgersPauseGoOutTogetherAndStoppingEndsThePause() {
        start(never(), aMinuteAfterEach());
        Run first = s.onlyRunOf(s.submit(aDraft()).id());
        Await.until("the first run's success is stored", () -> s.run(first.id()).status() == RunStatus.SUCCEEDED);

        Run second = s.onlyRunOf(s.submit(aDraft()).id());
        Run third = s.onlyRunOf(s.submit(aDraft()).id());
        Await.until("both ran", () -> s.shell.executions().size() == 3 && worker.busySlots() == 0);
        holdsFor("nothing more is acknowledged during the pause", Duration.ofMillis(300),
                () -> queue.acknowledgementBatches.size() == 1);

        long stopping = System.nanoTime();
        worker.stop();
        worker = null;

        assertThat(Duration.ofNanos(System.nanoTime() - stopping)).as("stopping ends the pause")
                .isLessThan(Duration.ofSeconds(20));
        assertThat(queue.acknowledgementBatches).containsExactly(1, 2);
        assertThat(s.run(second.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(s.run(third.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void afterARoundThatTookEveryDueRunTheClaimerWaitsOutItsPauseWhateverWakesItAndStoppingEndsIt() {
        start(aMinuteAfterEach(), never());
        // answered, not only asked: a run submitted while the first claim is still reading would be claimed by it
        Await.until("the first round ran (it found nothing)", () -> queue.claimsAnswered.get() >= 1);

        Run run = s.onlyRunOf(s.submit(aDraft()).id()); // submitting signals that runs became due

        holdsFor("the run waits for the pause to end", Duration.ofMillis(300),
                () -> queue.claims.get() == 1 && s.run(run.id()).status() == RunStatus.PENDING);
        long stopping = System.nanoTime();
        worker.stop();
        worker = null;
        assertThat(Duration.ofNanos(System.nanoTime() - stopping)).as("stopping ends the pause")
                .isLessThan(Duration.ofSeconds(20));
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    @Test
    void theAcknowledgersPauseIsFourTimesAsLongAsItsLastWriteTook() {
        start(never(), new BatchPacer(4, MINUTE, 0));
        java.util.concurrent.CountDownLatch slowWrite = new java.util.concurrent.CountDownLatch(1);
        queue.acknowledgementsWaitFor = slowWrite;
        Run first = s.onlyRunOf(s.submit(aDraft()).id());
        Await.until("the first result is being written", () -> queue.acknowledgementsWaiting.get() == 1);
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos()); // the write takes at least 50 ms

        queue.acknowledgementsWaitFor = null;
        long released = System.nanoTime();
        slowWrite.countDown();
        Run second = s.onlyRunOf(s.submit(aDraft()).id());
        Await.until("the second result is written (after a pause of at least 200 ms, not a minute)",
                Duration.ofSeconds(20), () -> s.run(second.id()).status() == RunStatus.SUCCEEDED);

        assertThat(Duration.ofNanos(System.nanoTime() - released)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(s.run(first.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(queue.acknowledgementBatches).containsExactly(1, 1);
    }

    @Test
    void theClaimersPauseIsFourTimesAsLongAsItsLastRoundTook() {
        java.util.concurrent.CountDownLatch slowClaim = new java.util.concurrent.CountDownLatch(1);
        queue.claimsWaitFor = slowClaim;
        start(new BatchPacer(4, MINUTE, 0), never());
        Await.until("the first claim is under way", () -> queue.claimsWaiting.get() == 1);
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos()); // the round takes at least 50 ms (and finds nothing)

        queue.claimsWaitFor = null;
        long released = System.nanoTime();
        slowClaim.countDown();
        Await.until("the first round is over", () -> queue.claimsAnswered.get() == 1);
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        Await.until("the run is claimed and succeeds (after a pause of at least 200 ms, not a minute)",
                Duration.ofSeconds(20), () -> s.run(run.id()).status() == RunStatus.SUCCEEDED);

        assertThat(Duration.ofNanos(System.nanoTime() - released)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void withoutPacingTheSameRunIsClaimedAtOnce() {
        start(never(), never());
        Await.until("the first round ran (it found nothing)", () -> queue.claims.get() >= 1);

        Run run = s.onlyRunOf(s.submit(aDraft()).id());

        Await.until("the run succeeded", Duration.ofSeconds(5), () -> s.run(run.id()).status() == RunStatus.SUCCEEDED);
    }
}
