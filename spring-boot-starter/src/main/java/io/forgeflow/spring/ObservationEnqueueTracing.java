package io.forgeflow.spring;

import io.forgeflow.client.jdbc.Enqueued;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Enqueues inside a Micrometer Observation {@code forgeflow.enqueue} (a producer's {@link SenderContext}, child of
 * the caller's current Observation or span) whose carrier a tracing bridge fills with {@code traceparent} and
 * {@code tracestate}: the job keeps them, so its run and the handler's Observation ({@link ObservationHandlerDecorator})
 * continue the caller's trace. Without a tracing bridge the carrier stays empty and the job is untraced. Tag
 * {@code forgeflow.handler} (low cardinality); a refused job is the Observation's error.
 */
public final class ObservationEnqueueTracing implements EnqueueTracing {
    /** The Observation's name. */
    public static final String NAME = "forgeflow.enqueue";
    private final ObservationRegistry registry;

    public ObservationEnqueueTracing(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Enqueued trace(HandlerJob job, Function<Map<String, String>, Enqueued> submit) {
        SenderContext<Map<String, String>> context = new SenderContext<>(
                (carrier, key, value) -> carrier.put(key, value));
        context.setCarrier(new HashMap<>());
        context.setRemoteServiceName("forgeflow");
        return Observation.createNotStarted(NAME, () -> context, registry)
                .contextualName("enqueue " + job.handler())
                .lowCardinalityKeyValue("forgeflow.handler", job.handler())
                .observe(() -> submit.apply(Map.copyOf(context.getCarrier())));
    }
}
