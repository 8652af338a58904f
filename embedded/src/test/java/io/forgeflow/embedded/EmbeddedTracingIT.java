package io.forgeflow.embedded;

import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.otel.OpenTelemetryTracing;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.trace.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.forgeflow.embedded.EmbeddedFixture.await;
import static io.forgeflow.embedded.EmbeddedFixture.fast;
import static org.assertj.core.api.Assertions.assertThat;

/** An embedded worker's handlers run inside their attempt's span, in the trace given to {@code enqueue()}. */
class EmbeddedTracingIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    HikariDataSource app;
    ForgeFlowWorker worker;
    OpenTelemetryTracing tracing;

    @BeforeEach
    void applicationPool() {
        app = EmbeddedFixture.applicationPool(pg, 10);
    }

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.close();
        }
        if (tracing != null) {
            tracing.close();
        }
        app.close();
    }

    @Test
    void withoutSpansOfItsOwnAHandlerIsGivenTheRunsTraceContext() {
        Map<String, String> seen = new ConcurrentHashMap<>();
        worker = fast(app, "w-context").handler("traced", ctx -> {
            seen.put("traceparent", String.valueOf(ctx.traceparent()));
            seen.put("tracestate", String.valueOf(ctx.tracestate()));
        }).start();

        String runId = pg.jdbi().withHandle(h -> h.createQuery("SELECT run_id FROM enqueue(name => 'traced', "
                        + "executor => 'java', payload => CAST(:payload AS jsonb), traceparent => :traceparent, "
                        + "tracestate => :tracestate)")
                .bind("payload", "{\"handler\": \"traced\"}")
                .bind("traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01")
                .bind("tracestate", "vendor=abc")
                .mapTo(String.class).one());
        await("the handler ran", Duration.ofSeconds(20), () -> seen.size() == 2);

        String runs = pg.jdbi().withHandle(h -> h.createQuery("SELECT traceparent FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", runId).mapTo(String.class).one());
        assertThat(seen.get("traceparent")).isEqualTo(runs).startsWith("00-" + TRACE + "-");
        assertThat(seen.get("tracestate")).isEqualTo("vendor=abc");
    }

    @Test
    void aHandlerRunsInsideItsAttemptsSpan() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // spans go nowhere: this test reads the context, not the export
        }
        Tracing t = OpenTelemetryTracing.fromEnvironment(Map.of(OpenTelemetryTracing.ENDPOINT_VARIABLE,
                "http://127.0.0.1:" + closed));
        assertThat(t).isInstanceOf(OpenTelemetryTracing.class);
        tracing = (OpenTelemetryTracing) t;
        Map<String, SpanContext> seen = new ConcurrentHashMap<>();
        worker = fast(app, "w-traced").tracing(tracing)
                .handler("traced", ctx -> seen.put(ctx.runId(), Span.current().getSpanContext())).start();

        String runId = pg.jdbi().withHandle(h -> h.createQuery("SELECT run_id FROM enqueue(name => 'traced', "
                        + "executor => 'java', payload => CAST(:payload AS jsonb), traceparent => :traceparent)")
                .bind("payload", "{\"handler\": \"traced\"}")
                .bind("traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01")
                .mapTo(String.class).one());
        await("the handler ran", Duration.ofSeconds(20), () -> seen.containsKey(runId));

        SpanContext inside = seen.get(runId);
        assertThat(inside.isValid()).isTrue();
        assertThat(inside.getTraceId()).isEqualTo(TRACE);
        // the attempt's span, not the caller's nor the run's
        String runSpan = pg.jdbi().withHandle(h -> h.createQuery("SELECT traceparent FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", runId).mapTo(String.class).one()).substring(36, 52);
        assertThat(inside.getSpanId()).isNotIn("00f067aa0ba902b7", runSpan);
    }
}
