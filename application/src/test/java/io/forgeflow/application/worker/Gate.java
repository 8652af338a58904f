package io.forgeflow.application.worker;

import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Holds executions until the test opens it, like a long process: an execution answered by {@link #then} blocks
 * until {@link #open()} (then returns the given result) or until its cancellation fires (then CANCELLED with the
 * cancellation's reason, as a well-behaved executor does). Thread-safe.
 */
final class Gate {
    private final List<CountDownLatch> held = new ArrayList<>();
    private final AtomicInteger entered = new AtomicInteger();
    private boolean open;

    Function<ExecutionContext, ExecutionResult> then(ExecutionResult result) {
        return ctx -> {
            CountDownLatch go = new CountDownLatch(1);
            synchronized (this) {
                if (open) {
                    go.countDown();
                } else {
                    held.add(go);
                }
            }
            ctx.cancellation().onCancel(go::countDown);
            entered.incrementAndGet();
            try {
                if (!go.await(30, TimeUnit.SECONDS)) {
                    return ExecutionResult.failed("", "the gate was never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExecutionResult.failed("", "interrupted");
            }
            return ctx.cancellation().isCancelled() ? ExecutionResult.cancelled("", ctx.cancellation().reason()) : result;
        };
    }

    /** How many executions reached the gate. */
    int entered() {
        return entered.get();
    }

    synchronized void open() {
        open = true;
        held.forEach(CountDownLatch::countDown);
        held.clear();
    }
}
