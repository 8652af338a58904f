package io.forgeflow.application.worker;

import io.forgeflow.application.testkit.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The claimer's wake-ups: who may end its wait, and when. */
class WakeUpTest {
    final WakeUp wakeUp = new WakeUp();

    @Test
    void freedRoomWakesTheClaimerOnlyWhenItsLastRoundWantedRoom() {
        wakeUp.wantRoom(false);
        wakeUp.roomFreed();
        assertThat(wakeUp.woken()).isFalse();

        wakeUp.wantRoom(true);
        wakeUp.roomFreed();

        assertThat(wakeUp.woken()).isTrue();
        assertThat(wakeUp.roomWanted()).isTrue();
    }

    @Test
    void theClaimerWantsRoomUntilARoundSaysOtherwiseAndNothingIsClosedAtFirst() {
        assertThat(wakeUp.roomWanted()).isTrue();
        assertThat(wakeUp.closed()).isFalse();

        wakeUp.wantRoom(false);

        assertThat(wakeUp.roomWanted()).isFalse();
    }

    @Test
    void aWaitThatEndsOnlyOnTimeIgnoresAWakeUpButUsesItUp() {
        wakeUp.wake();

        wakeUp.await(Duration.ofMillis(1).toNanos(), false);

        assertThat(wakeUp.woken()).isFalse();
    }

    @Test
    void aWakeUpEndsTheNextWaitAtOnceAndIsUsedUpByIt() {
        wakeUp.wake();

        wakeUp.await(Duration.ofMinutes(1).toNanos(), true);

        assertThat(wakeUp.woken()).isFalse();
    }

    @Test
    void closingEndsAWaitUnderWayAndEveryLaterOne() throws InterruptedException {
        Thread waiting = new Thread(() -> wakeUp.await(Duration.ofMinutes(1).toNanos(), false));
        waiting.start();
        Await.until("the thread waits", () -> waiting.getState() == Thread.State.TIMED_WAITING);

        wakeUp.close();
        waiting.join(Await.DEFAULT_TIMEOUT.toMillis());

        assertThat(waiting.isAlive()).isFalse();
        assertThat(wakeUp.closed()).isTrue();
        wakeUp.await(Duration.ofMinutes(1).toNanos(), false); // returns at once
    }

    @Test
    void theSignalBridgeTurnsTheDatabasesSignalIntoAWakeUp() {
        io.forgeflow.application.testkit.CountingWorkSignal signal = new io.forgeflow.application.testkit.CountingWorkSignal();
        wakeUp.listen(signal, "test-wakeups");
        try {
            signal.runsBecameDue();
            Await.until("the claimer is woken", wakeUp::woken);
        } finally {
            wakeUp.close();
        }
    }
}
