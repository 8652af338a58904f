package io.forgeflow.bench;

import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;

/**
 * The benchmark's executor, named {@code noop}: does nothing but count executions per run (by the payload's
 * {@code i}) and record when each started, so lost and duplicated runs and pickup latencies can be checked.
 * Compact arrays, not maps: a million runs cost a few megabytes.
 */
final class CountingNoop implements RunExecutor {
    final AtomicIntegerArray executions;
    final AtomicLongArray startedNanos;
    final AtomicLong total = new AtomicLong();

    private final String name;

    CountingNoop(int runs) {
        this(runs, "noop");
    }

    /** Under another name: enqueue() checks the payload of the built-in noop (no {@code i}), not a custom one's. */
    CountingNoop(int runs, String name) {
        executions = new AtomicIntegerArray(runs);
        startedNanos = new AtomicLongArray(runs);
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void validate(Map<String, Object> payload) {
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        long now = System.nanoTime();
        Object i = context.payload().get("i");
        if (i instanceof Number n && n.intValue() >= 0 && n.intValue() < executions.length()) {
            if (executions.getAndIncrement(n.intValue()) == 0) {
                startedNanos.set(n.intValue(), now);
            }
        }
        total.incrementAndGet();
        return ExecutionResult.succeeded("");
    }

    long lost() {
        return lostAmong(k -> true);
    }

    /** Runs that were submitted (the predicate holds for their index) and never executed. */
    long lostAmong(IntPredicate submitted) {
        long lost = 0;
        for (int k = 0; k < executions.length(); k++) {
            if (submitted.test(k) && executions.get(k) == 0) {
                lost++;
            }
        }
        return lost;
    }

    long duplicated() {
        long dup = 0;
        for (int k = 0; k < executions.length(); k++) {
            dup += Math.max(0, executions.get(k) - 1);
        }
        return dup;
    }
}
