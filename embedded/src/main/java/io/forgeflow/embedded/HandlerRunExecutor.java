package io.forgeflow.embedded;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Executor {@code java} in an embedded worker: runs the handler a run's payload names ({@link HandlerPayload}), each
 * attempt on a thread of its own ({@link HandlerAttempt}), with the job's timeout. The worker claims only runs of the
 * handlers registered here, so every run it gets has its handler. Thread-safe.
 */
final class HandlerRunExecutor implements RunExecutor {
    private final Map<String, Supplier<JobHandler>> handlers;
    private final ObjectMapper mapper;
    private final Duration interruptGrace;
    private final WorkerMetrics metrics;
    private final String workerId;
    private final ExecutorService threads;
    /** Handlers whose attempt was ended without them (they ignored the interruption) and that still run. */
    private final AtomicInteger leftBehind = new AtomicInteger();
    private final Tracing tracing;

    /**
     * @param handlers       by name; each supplier gives the handler for one attempt (one instance, or a new one)
     * @param interruptGrace how long a timed-out or cancelled handler may take to end once interrupted
     */
    HandlerRunExecutor(Map<String, Supplier<JobHandler>> handlers, ObjectMapper mapper, Duration interruptGrace,
                       WorkerMetrics metrics, String workerId) {
        this(handlers, mapper, interruptGrace, metrics, workerId, Tracing.NONE);
    }

    /** @param tracing carries the attempt's span onto the handler's thread */
    HandlerRunExecutor(Map<String, Supplier<JobHandler>> handlers, ObjectMapper mapper, Duration interruptGrace,
                       WorkerMetrics metrics, String workerId, Tracing tracing) {
        this.tracing = tracing;
        this.handlers = Map.copyOf(handlers);
        this.mapper = mapper;
        this.interruptGrace = interruptGrace;
        this.metrics = metrics;
        this.workerId = workerId;
        AtomicInteger n = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "ff-handler-" + n.incrementAndGet());
            t.setDaemon(true); // a handler that never ends must not keep the application's JVM alive
            return t;
        };
        this.threads = Executors.newCachedThreadPool(factory);
    }

    @Override
    public String name() {
        return HandlerPayload.EXECUTOR;
    }

    /** The payload rules of executor java ({@link HandlerPayload#of}). */
    @Override
    public void validate(Map<String, Object> payload) {
        HandlerPayload.of(payload);
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        HandlerPayload payload;
        try {
            payload = HandlerPayload.of(context.payload());
        } catch (ValidationException e) {
            return ExecutionResult.failedPermanently("", "invalid payload: " + e.getMessage());
        }
        Supplier<JobHandler> source = handlers.get(payload.handler());
        if (source == null) {
            // not claimed by this worker's claim keys; another worker with the handler may take the retry
            return ExecutionResult.failed("", "handler '" + payload.handler() + "' is not registered on embedded "
                    + "worker " + workerId);
        }
        JobHandler handler;
        try {
            handler = source.get();
        } catch (RuntimeException e) {
            return ExecutionResult.failed("", "handler '" + payload.handler() + "' could not be created: " + e);
        }
        AttemptContext job = new AttemptContext(payload, context, mapper);
        return new HandlerAttempt(handler, job, context.cancellation(), interruptGrace, metrics, leftBehind).run(task -> threads.execute(tracing.propagate(task)));
    }

    /** Handlers whose attempt ended without them (they ignored an interruption) and that have not ended since. */
    int leftBehind() {
        return leftBehind.get();
    }

    /** The handler names. */
    Set<String> names() {
        return handlers.keySet();
    }

    /** Interrupts whatever still runs and lets no new attempt start; called when the worker has stopped. */
    @Override
    public void close() {
        threads.shutdownNow();
    }
}
