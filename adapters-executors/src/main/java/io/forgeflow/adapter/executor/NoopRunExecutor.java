package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Does nothing, for benchmarking the scheduler itself: succeeds at once, or after {@code {"sleep_ms": n}}
 * (0 to 60000) to simulate work. The sleep ends early on cancellation (CANCELLED) or at the attempt's timeout
 * (TIMED_OUT). Output is {@code noop} or {@code noop: slept n ms}. Thread-safe and stateless.
 */
public final class NoopRunExecutor implements RunExecutor {
    private static final String SLEEP_MS = "sleep_ms";
    private static final long MAX_SLEEP_MS = 60_000;

    @Override
    public String name() {
        return "noop";
    }

    /** Allows only {@code sleep_ms}, a whole number of milliseconds from 0 to 60000. */
    @Override
    public void validate(Map<String, Object> payload) {
        sleepOf(payload);
    }

    private static long sleepOf(Map<String, Object> payload) {
        return new PayloadReader("noop", payload, Set.of(SLEEP_MS)).optionalWholeNumber(SLEEP_MS, 0, MAX_SLEEP_MS, 0);
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        long sleepMs;
        try {
            sleepMs = sleepOf(context.payload());
        } catch (ValidationException e) {
            return ExecutionResult.failedPermanently("", "invalid payload: " + e.getMessage());
        }
        CountDownLatch cancelled = new CountDownLatch(1);
        context.cancellation().onCancel(cancelled::countDown);
        Duration sleep = Duration.ofMillis(sleepMs);
        boolean timesOut = sleep.compareTo(context.timeout()) > 0;
        try {
            if (cancelled.await((timesOut ? context.timeout() : sleep).toNanos(), TimeUnit.NANOSECONDS)) {
                return ExecutionResult.cancelled("", "cancelled (" + context.cancellation().reason() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExecutionResult.cancelled("", "cancelled (worker interrupted)");
        }
        if (timesOut) {
            return ExecutionResult.timedOut("", "timed out after " + DurationText.seconds(context.timeout()));
        }
        return ExecutionResult.succeeded(sleepMs == 0 ? "noop" : "noop: slept " + sleepMs + " ms");
    }
}
