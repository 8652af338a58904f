package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The claimer's wait between rounds ({@link DueTimer}), on a test ticker: exact waits, no sleeps. */
class DueTimerTest {
    static final Duration POLL = Duration.ofSeconds(10);

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final TestTicker ticker = new TestTicker();
    final WakeUp wakeUp = new WakeUp();
    final DueTimer timer = new DueTimer(queue, s.executors, QueueLane.all(2), POLL, ticker, wakeUp);

    @Test
    void withNothingScheduledItWaitsThePollInterval() {
        assertThat(timer.idleWait()).isEqualTo(POLL);
    }

    @Test
    void aRunDueBeforeTheNextPollIsWaitedForToTheNanosecond() {
        queue.nextDueAnswer = Duration.ofSeconds(3);

        assertThat(timer.idleWait()).isEqualTo(Duration.ofSeconds(3));
        ticker.advance(Duration.ofSeconds(1));
        assertThat(timer.idleWait()).isEqualTo(Duration.ofSeconds(2));
        assertThat(queue.nextDueQueries.get()).as("the time told is remembered").isEqualTo(1);
    }

    @Test
    void aRunDueAfterTheNextPollLeavesThePollInterval() {
        queue.nextDueAnswer = Duration.ofSeconds(60);

        assertThat(timer.idleWait()).isEqualTo(POLL);
    }

    @Test
    void theQueueIsAskedAgainOnceThePollIntervalPassedOrTheTimeItToldHasCome() {
        queue.nextDueAnswer = Duration.ofSeconds(60);
        timer.idleWait();
        ticker.advance(POLL.minusNanos(1));
        timer.idleWait();
        assertThat(queue.nextDueQueries.get()).isEqualTo(1);
        ticker.advance(Duration.ofNanos(1));
        timer.idleWait();
        assertThat(queue.nextDueQueries.get()).isEqualTo(2);

        queue.nextDueAnswer = Duration.ofSeconds(2);
        ticker.advance(POLL);
        assertThat(timer.idleWait()).isEqualTo(Duration.ofSeconds(2));
        ticker.advance(Duration.ofSeconds(2));
        queue.nextDueAnswer = Duration.ofSeconds(4);

        assertThat(timer.idleWait()).as("read again when the told time came").isEqualTo(Duration.ofSeconds(4));
        assertThat(queue.nextDueQueries.get()).isEqualTo(4);
    }

    @Test
    void aDueTimeAlreadyPassedStillWaitsAMillisecond() {
        queue.nextDueAnswer = Duration.ZERO;

        assertThat(timer.idleWait()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void aRetryDueSoonerThanTheQueuesEarliestRunSetsTheTimerAndWakesTheClaimer() {
        queue.nextDueAnswer = Duration.ofSeconds(5);
        timer.idleWait();

        timer.retryDueAfter(Duration.ofSeconds(2));

        assertThat(wakeUp.woken()).as("the claimer recomputes its wait").isTrue();
        assertThat(timer.idleWait()).isEqualTo(Duration.ofSeconds(2));
        ticker.advance(Duration.ofSeconds(2));
        assertThat(timer.idleWait()).as("the retry came: the queue's run is next").isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void theSoonerOfTwoRetriesWins() {
        queue.nextDueFails = true;

        timer.retryDueAfter(Duration.ofSeconds(9));
        timer.retryDueAfter(Duration.ofSeconds(2));
        timer.retryDueAfter(Duration.ofSeconds(4));

        assertThat(timer.idleWait()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aRetryAfterThePollIntervalDoesNotWakeTheClaimer() {
        timer.retryDueAfter(POLL);

        assertThat(wakeUp.woken()).isFalse();
        assertThat(timer.idleWait()).isEqualTo(POLL);
    }

    @Test
    void whenTheQueueCannotTellItPolls() {
        queue.nextDueFails = true;

        assertThat(timer.idleWait()).isEqualTo(POLL);
    }
}
