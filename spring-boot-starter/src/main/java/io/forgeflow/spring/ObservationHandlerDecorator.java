package io.forgeflow.spring;

import io.forgeflow.embedded.JobHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;

import java.util.HashMap;
import java.util.Map;

/**
 * Runs each handler invocation inside a Micrometer Observation {@code forgeflow.handler} (a consumer's
 * {@link ReceiverContext}) whose carrier is the run's W3C trace context, {@code traceparent} and {@code tracestate}
 * ({@link io.forgeflow.embedded.JobContext#traceparent()}): with a tracing bridge (Micrometer Tracing over
 * OpenTelemetry or Brave), the handler's span continues the trace the job was enqueued in, and whatever the handler
 * observes (HTTP clients, JDBC, its own spans) is part of it. Tags: {@code forgeflow.handler} (low cardinality),
 * {@code forgeflow.run.id} and {@code forgeflow.attempt} (high). A failure of the handler is the Observation's error.
 */
public final class ObservationHandlerDecorator implements HandlerDecorator {
    /** The Observation's name. */
    public static final String NAME = "forgeflow.handler";
    private final ObservationRegistry registry;

    public ObservationHandlerDecorator(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public JobHandler decorate(String name, JobHandler handler) {
        return ctx -> {
            Map<String, String> carrier = new HashMap<>();
            if (ctx.traceparent() != null) {
                carrier.put("traceparent", ctx.traceparent());
                if (ctx.tracestate() != null) {
                    carrier.put("tracestate", ctx.tracestate());
                }
            }
            ReceiverContext<Map<String, String>> context = new ReceiverContext<>(Map::get);
            context.setCarrier(carrier);
            context.setRemoteServiceName("forgeflow");
            Observation.createNotStarted(NAME, () -> context, registry)
                    .contextualName(name)
                    .lowCardinalityKeyValue("forgeflow.handler", name)
                    .highCardinalityKeyValue("forgeflow.run.id", String.valueOf(ctx.runId()))
                    .highCardinalityKeyValue("forgeflow.attempt", Integer.toString(ctx.attempt()))
                    .observeChecked(() -> handler.handle(ctx));
        };
    }
}
