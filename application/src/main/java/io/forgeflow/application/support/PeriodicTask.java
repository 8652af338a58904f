package io.forgeflow.application.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Runs one step every interval on a daemon thread until stopped. A failing step is logged and retried at the next
 * interval; the loop never dies of an exception. A step may ask for a shorter wait before the next one
 * ({@link #PeriodicTask(String, Duration, Supplier)}): never longer than the interval.
 */
public final class PeriodicTask {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicTask.class);
    private final String name;
    private final Duration interval;
    private final Supplier<Duration> step;
    private final Thread thread;
    private volatile boolean running;

    public PeriodicTask(String name, Duration interval, Runnable step) {
        this(name, interval, () -> {
            step.run();
            return interval;
        });
    }

    /** @param step runs one step and returns how long to wait before the next (at most {@code interval} is waited) */
    public PeriodicTask(String name, Duration interval, Supplier<Duration> step) {
        this.name = name;
        this.interval = interval;
        this.step = step;
        this.thread = new Thread(this::loop, name);
        this.thread.setDaemon(true);
    }

    /** The wait after a step that asked for {@code requested}: between zero and the interval (null: the interval). */
    Duration waitAfter(Duration requested) {
        if (requested == null || requested.compareTo(interval) > 0) {
            return interval;
        }
        return requested.isNegative() ? Duration.ZERO : requested;
    }

    public void start() {
        running = true;
        thread.start();
    }

    /** Stops the loop and waits for the current step to end. */
    public void stop() {
        running = false;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        while (running) {
            Duration wait = interval;
            try {
                wait = waitAfter(step.get());
            } catch (RuntimeException e) {
                LOG.warn("{} failed: {}", name, e.toString(), e);
            }
            try {
                Thread.sleep(wait.toMillis(), wait.toNanosPart() % 1_000_000);
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            }
        }
    }
}
