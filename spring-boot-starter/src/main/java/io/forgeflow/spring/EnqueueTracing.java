package io.forgeflow.spring;

import io.forgeflow.client.jdbc.Enqueued;

import java.util.Map;
import java.util.function.Function;

/**
 * Gives a job the caller's trace context as the {@link JdbcForgeFlow} enqueues it, such as
 * {@link ObservationEnqueueTracing} with Micrometer. The application may define its own bean.
 */
@FunctionalInterface
public interface EnqueueTracing {
    /**
     * Calls {@code submit} once with the W3C trace context to store with the job ({@code traceparent} and
     * {@code tracestate} keys; an empty map for none) and returns what it returns.
     */
    Enqueued trace(HandlerJob job, Function<Map<String, String>, Enqueued> submit);
}
