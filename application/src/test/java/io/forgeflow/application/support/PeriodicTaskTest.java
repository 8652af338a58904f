package io.forgeflow.application.support;

import io.forgeflow.application.testkit.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class PeriodicTaskTest {

    @Test
    void runsItsStepEveryIntervalUntilStopped() {
        AtomicInteger steps = new AtomicInteger();
        PeriodicTask task = new PeriodicTask("test-steps", Duration.ofMillis(1), steps::incrementAndGet);

        task.start();
        Await.until("three steps ran", () -> steps.get() >= 3);
        task.stop();
        int afterStop = steps.get();

        assertThat(afterStop).isGreaterThanOrEqualTo(3);
        // stop() joined the loop's thread: no step can start any more
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("test-steps") && t.isAlive());
        assertThat(steps.get()).isEqualTo(afterStop);
    }

    @Test
    void aFailingStepIsRetriedAtTheNextIntervalAndNeverKillsTheLoop() {
        AtomicInteger attempts = new AtomicInteger();
        PeriodicTask task = new PeriodicTask("test-failing", Duration.ofMillis(1), () -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("database down");
        });

        task.start();
        Await.until("the loop kept going after failures", () -> attempts.get() >= 3);
        task.stop();

        assertThat(attempts.get()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void stopDoesNotWaitOutALongInterval() {
        AtomicInteger steps = new AtomicInteger();
        PeriodicTask task = new PeriodicTask("test-long-interval", Duration.ofHours(1), steps::incrementAndGet);
        task.start();
        Await.until("the first step ran", () -> steps.get() == 1);

        assertTimeoutPreemptively(Duration.ofSeconds(5), task::stop);
        assertThat(steps.get()).isEqualTo(1);
    }

    @Test
    void aStepMayAskForAShorterWaitButNeverALongerOne() {
        PeriodicTask task = new PeriodicTask("test-clamp", Duration.ofSeconds(1), () -> Duration.ZERO);

        assertThat(task.waitAfter(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(300));
        assertThat(task.waitAfter(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(1));
        assertThat(task.waitAfter(Duration.ofMillis(-5))).isEqualTo(Duration.ZERO);
        assertThat(task.waitAfter(null)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aStepThatAsksForAShortWaitRunsAgainLongBeforeTheInterval() {
        AtomicInteger steps = new AtomicInteger();
        PeriodicTask task = new PeriodicTask("test-short-wait", Duration.ofHours(1), () -> {
            steps.incrementAndGet();
            return Duration.ofMillis(1);
        });

        task.start();
        Await.until("three steps ran within the hour", () -> steps.get() >= 3);
        task.stop();

        assertThat(steps.get()).isGreaterThanOrEqualTo(3);
    }
}
