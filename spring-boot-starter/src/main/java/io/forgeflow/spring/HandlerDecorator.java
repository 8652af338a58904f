package io.forgeflow.spring;

import io.forgeflow.embedded.JobHandler;

/**
 * Wraps each {@link ForgeFlowHandler} method before the embedded worker gets it, such as
 * {@link ObservationHandlerDecorator} running it inside a Micrometer Observation. A bean of this type is applied by
 * {@link ForgeFlowLifecycle}; the application may define its own.
 */
@FunctionalInterface
public interface HandlerDecorator {
    /** Returns what the worker runs for handler {@code name}: {@code handler} itself, or a handler that calls it. */
    JobHandler decorate(String name, JobHandler handler);
}
