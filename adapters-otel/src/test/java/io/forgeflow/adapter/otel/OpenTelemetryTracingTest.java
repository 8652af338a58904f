package io.forgeflow.adapter.otel;

import io.forgeflow.application.trace.Tracing;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpenTelemetryTracingTest {
    @Test
    void withoutAnEndpointNothingIsCreated() {
        assertThat(OpenTelemetryTracing.fromEnvironment(Map.of())).isSameAs(Tracing.NONE);
        assertThat(OpenTelemetryTracing.fromEnvironment(Map.of(OpenTelemetryTracing.ENDPOINT_VARIABLE, " ")))
                .isSameAs(Tracing.NONE);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().contains("BatchSpanProcessor"));
    }

    @Test
    void theEndpointIsABaseUrlOrTheTracesUrl() {
        assertThat(OpenTelemetryTracing.tracesUrl("http://tempo:4318")).isEqualTo("http://tempo:4318/v1/traces");
        assertThat(OpenTelemetryTracing.tracesUrl("http://tempo:4318/")).isEqualTo("http://tempo:4318/v1/traces");
        assertThat(OpenTelemetryTracing.tracesUrl("http://c/otlp/v1/traces")).isEqualTo("http://c/otlp/v1/traces");
    }

    @Test
    void aProtocolOtherThanHttpIsRefusedByName() {
        assertThatThrownBy(() -> OpenTelemetryTracing.fromEnvironment(Map.of(OpenTelemetryTracing.ENDPOINT_VARIABLE,
                "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OTEL_EXPORTER_OTLP_PROTOCOL 'grpc'").hasMessageContaining("http/json");
    }
}
