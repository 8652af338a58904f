package io.forgeflow.spring;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.Enqueued;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With an {@code ObservationRegistry} and Micrometer Tracing over OpenTelemetry (the real bridge, spans kept in
 * memory), a handler runs inside an Observation whose span continues the run's W3C trace context: the span the
 * handler sees has the trace id the job was enqueued with and the run's span as its parent, and the tracestate goes
 * along; and a job enqueued through the {@code ForgeFlow} bean carries the caller's trace to its handler. Run by this
 * module on Boot 3.5 and by spring-boot-starter-boot4 on Boot 4.0.
 */
class ForgeFlowObservationIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    /** What the handler saw of the current span: trace id, span id, parent id; empty when there was none. */
    static final BlockingQueue<List<String>> SEEN = new LinkedBlockingQueue<>();

    public static class Handlers {
        private final Tracer tracer;

        public Handlers(Tracer tracer) {
            this.tracer = tracer;
        }

        @ForgeFlowHandler("traced")
        public void traced(JsonNode args) {
            Span span = tracer.currentSpan();
            SEEN.add(span == null ? List.of() : List.of(span.context().traceId(), span.context().spanId(),
                    String.valueOf(span.context().parentId())));
        }
    }

    /** The application's tracing, as Boot's tracing auto-configuration would make it with the OpenTelemetry bridge. */
    @Import(ForgeFlowStarterIT.Base.class)
    public static class TracedApp {
        @Bean
        InMemorySpanExporter spans() {
            return InMemorySpanExporter.create();
        }

        @Bean(destroyMethod = "close")
        OpenTelemetrySdk openTelemetry(InMemorySpanExporter spans) {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans))
                            .build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                    .build();
        }

        @Bean
        OtelTracer tracer(OpenTelemetrySdk openTelemetry) {
            return new OtelTracer(openTelemetry.getTracer("it"), new OtelCurrentTraceContext(), event -> {
            });
        }

        @Bean
        ObservationRegistry observationRegistry(OpenTelemetrySdk openTelemetry, OtelTracer tracer) {
            ObservationRegistry registry = ObservationRegistry.create();
            OtelPropagator propagator = new OtelPropagator(openTelemetry.getPropagators(), openTelemetry.getTracer("it"));
            registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                    new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                    new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                    new DefaultTracingObservationHandler(tracer)));
            return registry;
        }

        @Bean
        Handlers handlers(Tracer tracer) {
            return new Handlers(tracer);
        }
    }

    static ConfigurableApplicationContext start() {
        SEEN.clear();
        return new SpringApplicationBuilder(TracedApp.class).web(WebApplicationType.NONE)
                .properties("spring.datasource.url=" + pg.jdbcUrl(), "spring.datasource.username=" + pg.user(),
                        "spring.datasource.password=" + pg.password(), "spring.datasource.hikari.maximum-pool-size=8",
                        "forgeflow.poll-interval=200ms", "forgeflow.drain-grace=2s", "forgeflow.scheduler=false")
                .run();
    }

    @Test
    void aJobEnqueuedThroughTheForgeFlowBeanCarriesTheCallersTraceToItsHandler() throws Exception {
        try (ConfigurableApplicationContext ctx = start()) {
            Tracer tracer = ctx.getBean(Tracer.class);
            Span request = tracer.nextSpan().name("request").start();
            Enqueued job;
            try (Tracer.SpanInScope in = tracer.withSpan(request)) {
                job = ctx.getBean(ForgeFlow.class).enqueue("traced", Map.of("n", 1));
            } finally {
                request.end();
            }

            List<String> seen = SEEN.poll(20, TimeUnit.SECONDS);
            assertThat(seen).as("the span current in the handler").isNotNull().hasSize(3);
            assertThat(seen.get(0)).as("the caller's trace").isEqualTo(request.context().traceId());
            InMemorySpanExporter spans = ctx.getBean(InMemorySpanExporter.class);
            SpanData enqueue = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("enqueue traced"))
                    .findFirst().orElseThrow(() -> new AssertionError("no enqueue span in " + spans.getFinishedSpanItems()));
            assertThat(enqueue.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(enqueue.getParentSpanId()).isEqualTo(request.context().spanId());
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SELECT traceparent FROM forgeflow.jobs WHERE id = CAST(? AS uuid)",
                    String.class, job.jobId())).as("the job keeps the enqueue span's context")
                    .isEqualTo("00-" + request.context().traceId() + "-" + enqueue.getSpanId() + "-01");
        }
    }

    @Test
    void aHandlerRunsInsideAnObservationThatContinuesTheRunsTraceContext() throws Exception {
        try (ConfigurableApplicationContext ctx = start()) {
            assertThat(ctx.getBean(HandlerDecorator.class)).isInstanceOf(ObservationHandlerDecorator.class);
            assertThat(ctx.getBean(EnqueueTracing.class)).isInstanceOf(ObservationEnqueueTracing.class);
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            String runId = jdbc.queryForObject("SELECT run_id FROM forgeflow.enqueue(name => 'traced', "
                            + "executor => 'java', payload => CAST(? AS jsonb), traceparent => ?, tracestate => ?)",
                    String.class, "{\"handler\": \"traced\"}", "00-" + TRACE + "-00f067aa0ba902b7-01", "vendor=abc");
            String runSpan = jdbc.queryForObject("SELECT traceparent FROM forgeflow.runs WHERE id = CAST(? AS uuid)",
                    String.class, runId).substring(36, 52);

            List<String> seen = SEEN.poll(20, TimeUnit.SECONDS);
            assertThat(seen).as("the span current in the handler: trace id, span id, parent id").isNotNull()
                    .hasSize(3);
            assertThat(seen.get(0)).isEqualTo(TRACE);
            assertThat(seen.get(2)).as("its parent: the run's span").isEqualTo(runSpan);

            InMemorySpanExporter spans = ctx.getBean(InMemorySpanExporter.class);
            ForgeFlowStarterIT.awaitTrue("the handler's span", () -> spans.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getSpanId().equals(seen.get(1))));
            SpanData span = spans.getFinishedSpanItems().stream().filter(s -> s.getSpanId().equals(seen.get(1)))
                    .findFirst().orElseThrow();
            assertThat(span.getName()).isEqualTo("traced");
            assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
            assertThat(span.getParentSpanId()).isEqualTo(runSpan);
            assertThat(span.getSpanContext().getTraceState().asMap()).isEqualTo(Map.of("vendor", "abc"));
            assertThat(span.getAttributes().asMap().entrySet()).anySatisfy(a -> {
                assertThat(a.getKey().getKey()).isEqualTo("forgeflow.handler");
                assertThat(a.getValue()).isEqualTo("traced");
            });
        }
    }
}
