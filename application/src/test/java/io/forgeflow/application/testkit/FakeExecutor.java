package io.forgeflow.application.testkit;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A {@link RunExecutor} that answers from a script: each {@link #execute} takes the next scripted answer, and
 * once the script is used up answers with the default (success with output {@code "ok"}). Records every context
 * it was given. {@link #validate} rejects a payload holding the key {@code bad} (field {@code payload.bad}) and
 * accepts anything else. Thread-safe.
 */
public final class FakeExecutor implements RunExecutor {
    private final String name;
    private final Deque<Function<ExecutionContext, ExecutionResult>> script = new ArrayDeque<>();
    private final List<ExecutionContext> executions = new ArrayList<>();
    private Function<ExecutionContext, ExecutionResult> fallback = ctx -> ExecutionResult.succeeded("ok");
    private boolean closed;

    public FakeExecutor(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** Answers the next executions with these results, in order. */
    public synchronized FakeExecutor thenReturn(ExecutionResult... results) {
        for (ExecutionResult result : results) {
            script.add(ctx -> result);
        }
        return this;
    }

    /** Answers the next execution by calling {@code answer} (which may block, e.g. {@link #untilCancelled()}). */
    public synchronized FakeExecutor thenAnswer(Function<ExecutionContext, ExecutionResult> answer) {
        script.add(answer);
        return this;
    }

    /** The answer once the script is used up. */
    public synchronized FakeExecutor byDefault(Function<ExecutionContext, ExecutionResult> answer) {
        this.fallback = Objects.requireNonNull(answer, "answer");
        return this;
    }

    /**
     * An answer that blocks like a long process: until the context's cancellation fires (then CANCELLED, with the
     * cancellation's reason) or its timeout passes (then TIMED_OUT).
     */
    public static Function<ExecutionContext, ExecutionResult> untilCancelled() {
        return ctx -> {
            CountDownLatch stopped = new CountDownLatch(1);
            ctx.cancellation().onCancel(stopped::countDown);
            try {
                if (stopped.await(ctx.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                    return ExecutionResult.cancelled("", ctx.cancellation().reason());
                }
                return ExecutionResult.timedOut("", "timed out after " + ctx.timeout().toSeconds() + "s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExecutionResult.failed("", "interrupted");
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void validate(Map<String, Object> payload) {
        if (payload != null && payload.containsKey("bad")) {
            throw new ValidationException("payload.bad", "payload.bad is not accepted by executor '" + name
                    + "': remove it");
        }
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        Function<ExecutionContext, ExecutionResult> answer;
        synchronized (this) {
            executions.add(context);
            answer = script.isEmpty() ? fallback : script.poll();
        }
        return answer.apply(context);
    }

    /** Every context {@link #execute} was called with, in call order. */
    public synchronized List<ExecutionContext> executions() {
        return List.copyOf(executions);
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    public synchronized boolean isClosed() {
        return closed;
    }
}
