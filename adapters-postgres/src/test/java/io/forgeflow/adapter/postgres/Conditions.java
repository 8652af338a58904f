package io.forgeflow.adapter.postgres;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waiting on conditions with deadlines, for things the database settles on its own time. */
final class Conditions {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private Conditions() {
    }

    /** Evaluates {@code condition} every few milliseconds until it holds; fails after {@code timeout}. */
    static void awaitTrue(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
