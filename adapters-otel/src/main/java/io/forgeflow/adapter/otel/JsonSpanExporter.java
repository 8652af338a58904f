package io.forgeflow.adapter.otel;

import io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler;
import io.opentelemetry.exporter.otlp.internal.HttpExporter;
import io.opentelemetry.exporter.otlp.internal.HttpExporterBuilder;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.internal.StandardComponentId;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * OTLP/HTTP with JSON bodies ({@code OTEL_EXPORTER_OTLP_PROTOCOL=http/json}), which the SDK's public OTLP exporter
 * does not offer: the SDK's own HTTP exporter and span marshaler, in their JSON mode (internal classes of the pinned
 * SDK version, so an SDK upgrade is checked by {@code JsonSpanExporterTest}).
 */
final class JsonSpanExporter implements SpanExporter {
    private final HttpExporter exporter;

    private JsonSpanExporter(HttpExporter exporter) {
        this.exporter = exporter;
    }

    static JsonSpanExporter create(String url, Map<String, String> headers, long timeoutMillis) {
        HttpExporterBuilder builder = new HttpExporterBuilder(
                StandardComponentId.ExporterType.OTLP_HTTP_JSON_SPAN_EXPORTER, url)
                .setEndpoint(url)
                .setTimeout(Duration.ofMillis(timeoutMillis))
                .exportAsJson();
        headers.forEach(builder::addConstantHeaders);
        return new JsonSpanExporter(builder.build());
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        return exporter.export(TraceRequestMarshaler.create(spans), spans.size());
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return exporter.shutdown();
    }
}
