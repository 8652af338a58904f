package io.forgeflow.adapter.executor;

import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.util.Map;

/**
 * Executor {@code java} as a standalone node knows it: it checks payloads ({@code {"handler": "send-receipt",
 * "args": {...}}}, {@link HandlerPayload}), so the API and {@code forgeflow.enqueue()} accept jobs for the handlers of
 * embedded workers (module embedded), which run them in their own JVM. A node has no handlers and never claims these
 * runs: a java run is claimed by its handler's name ({@code java:<handler>}), which no node's executor list holds.
 * Thread-safe and stateless.
 */
public final class JavaHandlerRunExecutor implements RunExecutor {

    @Override
    public String name() {
        return HandlerPayload.EXECUTOR;
    }

    @Override
    public void validate(Map<String, Object> payload) {
        HandlerPayload.of(payload);
    }

    /** Not reached through a claim (see the class comment); says why if a caller gets here anyway. */
    @Override
    public ExecutionResult execute(ExecutionContext context) {
        return ExecutionResult.failed("", "handler '" + HandlerPayload.handlerOf(context.payload()) + "' runs on an "
                + "embedded worker that registered it; this node has no handlers");
    }
}
