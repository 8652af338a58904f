package io.forgeflow.application.worker;

import io.forgeflow.domain.port.WorkSignal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What wakes the claimer: runs became due (the database's {@link WorkSignal}, bridged by {@link #listen}), a freed
 * slot or a written batch of results while the claimer waits for room, a retry due before the next poll, the drain.
 * Owns the wake flag and whether the claimer wants room; the services that free room call {@link #roomFreed()}.
 */
final class WakeUp {
    private static final Logger LOG = LoggerFactory.getLogger(WakeUp.class);

    private final Object lock = new Object();
    private boolean woken;
    /**
     * Whether the claimer's last round was held back by room (a lane with no room, a lane whose room filled up, or
     * results waiting to be written): only then does freed room wake it. Otherwise the last round took every due run
     * it could see, and a freed slot makes no run due.
     */
    private volatile boolean roomWanted = true;
    private volatile boolean closed;
    private Thread bridge;

    /** Wakes the claimer now (or its next wait ends at once). */
    void wake() {
        synchronized (lock) {
            woken = true;
            lock.notifyAll();
        }
    }

    /** A slot freed or results were written: wakes the claimer only if its last round wanted room. */
    void roomFreed() {
        if (roomWanted) {
            wake();
        }
    }

    void wantRoom(boolean wanted) {
        roomWanted = wanted;
    }

    boolean roomWanted() {
        return roomWanted;
    }

    /**
     * Waits up to {@code nanos}, less once woken (when {@code endOnWake}) or closed; clears the wake flag either way:
     * the claim that follows sees every run that became due meanwhile.
     */
    void await(long nanos, boolean endOnWake) {
        long deadline = System.nanoTime() + nanos;
        synchronized (lock) {
            long left;
            while (!(endOnWake && woken) && !closed && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            woken = false;
        }
    }

    /** Turns the database's wake-up signal into wake-ups, on a daemon thread, until {@link #close()}. */
    void listen(WorkSignal signal, String name) {
        Thread t = new Thread(() -> {
            while (!closed) {
                try {
                    if (signal.await(Duration.ofSeconds(1))) {
                        wake();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    LOG.debug("wake-up signal unavailable: {}", e.toString());
                    try {
                        Thread.sleep(1_000);
                    } catch (InterruptedException stop) {
                        return;
                    }
                }
            }
        }, name);
        t.setDaemon(true);
        bridge = t;
        t.start();
    }

    /** Ends every wait, now and later, and stops listening (the worker drains). */
    void close() {
        closed = true;
        wake();
        Thread t = bridge;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Whether a wake-up is waiting to end the next wait. */
    boolean woken() {
        synchronized (lock) {
            return woken;
        }
    }

    boolean closed() {
        return closed;
    }
}
