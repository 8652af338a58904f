package io.forgeflow.application.testkit;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread makes true (an execution slot finishing, a drain ending), polling it
 * every millisecond until a deadline. Tests use it instead of sleeping for a guessed time: they go on the moment
 * the condition holds, and fail with a message naming it when it never does.
 */
public final class Await {
    /**
     * Long enough for a loaded CI machine; a passing test never waits this long. 10 s unless the system property
     * {@code forgeflow.test.awaitTimeout} (an ISO-8601 duration) says otherwise: the mutation profile sets 1.5 s, so a
     * mutant that stops a worker thread fails its test in a second instead of timing out the whole test JVM
     * (docs/mutation.md).
     */
    public static final Duration DEFAULT_TIMEOUT = Duration.parse(System.getProperty("forgeflow.test.awaitTimeout", "PT10S"));

    private Await() {
    }

    /** Returns as soon as {@code condition} holds; fails after {@link #DEFAULT_TIMEOUT}. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_TIMEOUT, condition);
    }

    /** Returns as soon as {@code condition} holds; fails after {@code timeout}, naming {@code what}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + timeout + " in vain until " + what);
            }
            LockSupport.parkNanos(1_000_000L);
        }
    }
}
