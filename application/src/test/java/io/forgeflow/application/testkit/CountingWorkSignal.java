package io.forgeflow.application.testkit;

import io.forgeflow.domain.port.WorkSignal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@link WorkSignal} that counts {@link #runsBecameDue()} calls. Signals are coalesced as the port says: any
 * number of calls before an {@link #await} wake it once.
 */
public final class CountingWorkSignal implements WorkSignal {
    private final Object lock = new Object();
    private int count;
    private boolean pending;

    @Override
    public void runsBecameDue() {
        synchronized (lock) {
            count++;
            pending = true;
            lock.notifyAll();
        }
    }

    /** Returns at once when a signal is pending (consuming it), else waits up to {@code timeout} for one. */
    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!pending) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            pending = false;
            return true;
        }
    }

    /** How many times {@link #runsBecameDue()} was called. */
    public int count() {
        synchronized (lock) {
            return count;
        }
    }

    /** Forgets the count and any pending signal. */
    public void reset() {
        synchronized (lock) {
            count = 0;
            pending = false;
        }
    }
}
