package io.forgeflow.adapter.executor;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/** Waits for a condition with a deadline, checking it every few milliseconds: tests never sleep a fixed time. */
final class Await {
    private Await() {
    }

    static void until(Duration limit, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("waited " + limit.toMillis() + " ms for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
