package io.forgeflow.application.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Runs one step every interval on a daemon thread until stopped. A failing step is logged and retried at the next
 * interval; the loop never dies of an exception.
 */
public final class PeriodicTask {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicTask.class);
    private final String name;
    private final Duration interval;
    private final Runnable step;
    private final Thread thread;
    private volatile boolean running;

    public PeriodicTask(String name, Duration interval, Runnable step) {
        this.name = name;
        this.interval = interval;
        this.step = step;
        this.thread = new Thread(this::loop, name);
        this.thread.setDaemon(true);
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
            try {
                step.run();
            } catch (RuntimeException e) {
                LOG.warn("{} failed: {}", name, e.toString(), e);
            }
            try {
                Thread.sleep(interval.toMillis());
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            }
        }
    }
}
