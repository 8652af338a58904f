package io.forgeflow.application.support;

import io.forgeflow.application.testkit.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class PeriodicTaskThreadTest {

    @Test
    void theLoopRunsOnADaemonThreadNamedAfterTheTask() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        PeriodicTask task = new PeriodicTask("test-daemon", Duration.ofMillis(1), () -> ranOn.set(Thread.currentThread()));

        task.start();
        Await.until("a step ran", () -> ranOn.get() != null);
        task.stop();

        assertThat(ranOn.get().getName()).isEqualTo("test-daemon");
        assertThat(ranOn.get().isDaemon()).as("a stuck step never keeps the JVM alive").isTrue();
    }

    @Test
    void anInterruptWhileRunningDoesNotEndTheLoop() {
        AtomicInteger steps = new AtomicInteger();
        AtomicReference<Thread> thread = new AtomicReference<>();
        PeriodicTask task = new PeriodicTask("test-interrupted", Duration.ofHours(1), () -> {
            thread.set(Thread.currentThread());
            steps.incrementAndGet();
        });
        task.start();
        Await.until("the first step ran", () -> steps.get() == 1);

        thread.get().interrupt(); // wakes the hour-long pause, as a stray interrupt would: the next step runs at once

        Await.until("the loop went on", () -> steps.get() == 2);
        task.stop();
        assertThat(thread.get().isAlive()).isFalse();
    }

    @Test
    void stopWaitsForTheStepInProgress() throws InterruptedException {
        AtomicInteger steps = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        PeriodicTask task = new PeriodicTask("test-busy-step", Duration.ofMillis(1), () -> {
            steps.incrementAndGet();
            while (!release.get()) {
                Thread.onSpinWait(); // a step that does not notice interrupts, like a blocking JDBC call
            }
        });
        task.start();
        Await.until("the step is running", () -> steps.get() == 1);

        Thread stopper = new Thread(task::stop, "test-stopper");
        stopper.start();
        stopper.join(200);
        assertThat(stopper.isAlive()).as("stop() still waits for the step").isTrue();

        release.set(true);
        stopper.join(10_000);
        assertThat(stopper.isAlive()).isFalse();
        assertThat(steps.get()).isEqualTo(1);
    }
}
