package io.forgeflow.application.worker;

import java.util.concurrent.locks.LockSupport;

/**
 * A monotonic clock in nanoseconds (as {@link System#nanoTime()}), and the short pauses measured on it (the pacing of
 * the claimer and the acknowledger). Tests pass one they move by hand, whose pauses move it instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long nanos();

    /** Pauses the calling thread for about {@code nanos}. */
    default void park(long nanos) {
        LockSupport.parkNanos(nanos);
    }
}
