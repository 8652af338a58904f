package io.forgeflow.adapter.otel;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.trace.TraceContext;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@link Tracing} on the OpenTelemetry SDK. Spans: {@code forgeflow.submit} / {@code forgeflow.trigger} (producer,
 * under the caller's {@code traceparent}), {@code forgeflow.run} (from the run's creation to its end, under the
 * submission, or linked to it for a cron tick's new trace) and {@code forgeflow.attempt} (consumer, a child of the run's
 * span), with the messaging semantic conventions where they fit. Built by {@link #fromEnvironment}: with
 * {@value #ENDPOINT_VARIABLE} unset nothing is created (no SDK, no exporter thread) and {@link Tracing#NONE} is used.
 */
public final class OpenTelemetryTracing implements Tracing, AutoCloseable {
    /** Where to export (an OTLP/HTTP base URL such as {@code http://tempo:4318}, or its {@code /v1/traces} URL). */
    public static final String ENDPOINT_VARIABLE = "FORGEFLOW_OTLP_ENDPOINT";
    static final String TRACES_PATH = "/v1/traces";
    private static final int MAX_ERROR_LENGTH = 1000;

    private static final AttributeKey<String> SYSTEM_KEY = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation");
    private static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("forgeflow.job.id");
    private static final AttributeKey<String> EXECUTOR = AttributeKey.stringKey("forgeflow.executor");
    private static final AttributeKey<String> WORKER = AttributeKey.stringKey("forgeflow.worker.id");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("forgeflow.attempt");
    private static final AttributeKey<Long> QUEUE_WAIT = AttributeKey.longKey("forgeflow.queue_wait_ms");
    private static final AttributeKey<String> RUN_STATUS = AttributeKey.stringKey("forgeflow.run.status");
    private static final AttributeKey<String> ERROR = AttributeKey.stringKey("forgeflow.error");

    /** The SDK's own export failure messages, repeated per batch: {@link ReportingExporter} reports once instead. */
    private static final Logger[] MUTED = {
            Logger.getLogger("io.opentelemetry.exporter.internal.http.HttpExporter"),
            Logger.getLogger("io.opentelemetry.sdk.trace.export.BatchSpanProcessor")};

    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final OpenTelemetrySdk sdk;
    private final Tracer tracer;
    private final String endpoint;

    private OpenTelemetryTracing(OpenTelemetrySdk sdk, String endpoint) {
        this.sdk = sdk;
        this.tracer = sdk.getTracer("io.forgeflow");
        this.endpoint = endpoint;
    }

    /**
     * The tracing {@code environment} asks for: {@link Tracing#NONE} without {@value #ENDPOINT_VARIABLE}, else spans
     * exported there, configured by the standard {@code OTEL_*} variables as well (service name, resource attributes,
     * sampler, batch sizes, headers; {@code OTEL_EXPORTER_OTLP_PROTOCOL} {@code http/protobuf}, the default, or
     * {@code http/json}).
     */
    public static Tracing fromEnvironment(Map<String, String> environment) {
        String endpoint = environment.get(ENDPOINT_VARIABLE);
        if (endpoint == null || endpoint.isBlank()) {
            return Tracing.NONE;
        }
        return start(endpoint.trim(), environment);
    }

    /** Starts the SDK exporting to {@code endpoint}; {@code environment} holds the {@code OTEL_*} variables. */
    static OpenTelemetryTracing start(String endpoint, Map<String, String> environment) {
        String tracesUrl = tracesUrl(endpoint);
        for (Logger muted : MUTED) {
            muted.setLevel(Level.OFF);
        }
        Map<String, String> defaults = new HashMap<>();
        defaults.put("otel.service.name", "forgeflow");
        defaults.put("otel.traces.exporter", "otlp");
        defaults.put("otel.metrics.exporter", "none");
        defaults.put("otel.logs.exporter", "none");
        defaults.put("otel.exporter.otlp.protocol", "http/protobuf");
        environment.forEach((name, value) -> {
            if (name.startsWith("OTEL_")) {
                defaults.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value);
            }
        });
        String protocol = defaults.getOrDefault("otel.exporter.otlp.traces.protocol",
                defaults.get("otel.exporter.otlp.protocol")).trim();
        boolean json = "http/json".equals(protocol);
        if (!json && !"http/protobuf".equals(protocol)) {
            throw new IllegalArgumentException("OTEL_EXPORTER_OTLP_PROTOCOL '" + protocol + "' is not supported by "
                    + "ForgeFlow: use http/protobuf (the default) or http/json");
        }
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> defaults)
                .addPropertiesCustomizer(config -> Map.of(
                        "otel.exporter.otlp.traces.endpoint", tracesUrl,
                        // the SDK's OTLP exporter speaks protobuf; http/json swaps it below
                        "otel.exporter.otlp.traces.protocol", "http/protobuf"))
                .addTracerProviderCustomizer((builder, config) -> builder.setIdGenerator(new PresetIds()))
                .addSpanExporterCustomizer((exporter, config) -> new ReportingExporter(
                        json ? JsonSpanExporter.create(tracesUrl, headers(config), timeoutMillis(config)) : exporter,
                        tracesUrl, json ? exporter : null))
                .build()
                .getOpenTelemetrySdk();
        return new OpenTelemetryTracing(sdk, tracesUrl);
    }

    static String tracesUrl(String endpoint) {
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        return base.endsWith(TRACES_PATH) ? base : base + TRACES_PATH;
    }

    private static Map<String, String> headers(ConfigProperties config) {
        Map<String, String> headers = new HashMap<>(config.getMap("otel.exporter.otlp.headers"));
        headers.putAll(config.getMap("otel.exporter.otlp.traces.headers"));
        return headers;
    }

    private static long timeoutMillis(ConfigProperties config) {
        java.time.Duration timeout = config.getDuration("otel.exporter.otlp.traces.timeout",
                config.getDuration("otel.exporter.otlp.timeout", java.time.Duration.ofSeconds(10)));
        return timeout.toMillis();
    }

    /** The OTLP URL spans go to. */
    public String endpoint() {
        return endpoint;
    }

    @Override
    public Tracing.Span submission(String operation, TraceContext incoming) {
        io.opentelemetry.api.trace.Span span = tracer.spanBuilder("forgeflow." + operation)
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(context(incoming))
                .setAttribute(SYSTEM_KEY, SYSTEM)
                .setAttribute(OPERATION, "publish")
                .setAttribute(OPERATION_TYPE, "send")
                .startSpan();
        return new SdkSpan(span);
    }

    @Override
    public Tracing.Span attempt(Run run, String workerId) {
        RunTrace trace = run.trace();
        SpanBuilder builder = tracer.spanBuilder("forgeflow.attempt")
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(context(trace == null ? null : trace.context()))
                .setAttribute(SYSTEM_KEY, SYSTEM)
                .setAttribute(OPERATION, "process")
                .setAttribute(OPERATION_TYPE, "process")
                .setAttribute(MESSAGE_ID, run.id())
                .setAttribute(JOB_ID, run.jobId())
                .setAttribute(EXECUTOR, run.executor())
                .setAttribute(WORKER, workerId)
                .setAttribute(ATTEMPT, (long) run.attempt());
        if (trace != null && trace.queue() != null) {
            builder.setAttribute(DESTINATION, trace.queue());
        }
        if (run.startedAt() != null) {
            builder.setAttribute(QUEUE_WAIT, Math.max(0, run.startedAt().toEpochMilli()
                    - run.scheduledFor().toEpochMilli()));
        }
        return new SdkSpan(builder.startSpan());
    }

    @Override
    public void runEnded(Run run, RunStatus status, String error) {
        RunTrace trace = run.trace();
        if (trace == null || trace.context() == null) {
            return;
        }
        TraceContext own = trace.context();
        TraceContext origin = trace.origin();
        SpanBuilder builder = tracer.spanBuilder("forgeflow.run")
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(SYSTEM_KEY, SYSTEM)
                .setAttribute(MESSAGE_ID, run.id())
                .setAttribute(JOB_ID, run.jobId())
                .setAttribute(EXECUTOR, run.executor())
                .setAttribute(ATTEMPT, (long) run.attempt())
                .setAttribute(RUN_STATUS, status.wireName());
        if (trace.queue() != null) {
            builder.setAttribute(DESTINATION, trace.queue());
        }
        if (run.createdAt() != null) {
            builder.setStartTimestamp(run.createdAt());
        }
        Context parent = origin == null ? null : context(origin);
        if (origin != null && origin.traceId().equals(own.traceId())) {
            builder.setParent(parent);
        } else {
            builder.setNoParent();
            if (origin != null) {
                builder.addLink(io.opentelemetry.api.trace.Span.fromContext(parent).getSpanContext());
            }
        }
        // the sampling decision made for the run's context when it was stored
        if (!own.sampled()) {
            return;
        }
        PresetIds.preset(own.traceId(), own.spanId());
        try {
            io.opentelemetry.api.trace.Span span = builder.startSpan();
            if (error != null && status != RunStatus.SUCCEEDED) {
                span.setStatus(StatusCode.ERROR, shorten(error));
                span.setAttribute(ERROR, shorten(error));
            }
            span.end(Instant.now());
        } finally {
            PresetIds.clear();
        }
    }

    @Override
    public Runnable propagate(Runnable task) {
        return Context.current().wrap(task);
    }

    /** Exports what is buffered now (waiting at most a few seconds); the exporter goes on. */
    public void flush() {
        sdk.getSdkTracerProvider().forceFlush().join(5, TimeUnit.SECONDS);
    }

    /** Flushes what is buffered (at most a few seconds) and stops the exporter thread. */
    @Override
    public void close() {
        sdk.shutdown().join(5, TimeUnit.SECONDS);
    }

    /** A context whose (remote) parent is {@code trace}; the root context for none. */
    private static Context context(TraceContext trace) {
        if (trace == null) {
            return Context.root();
        }
        Map<String, String> carrier = new HashMap<>(2);
        carrier.put("traceparent", trace.traceparent());
        if (trace.tracestate() != null) {
            carrier.put("tracestate", trace.tracestate());
        }
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, GETTER);
    }

    static TraceContext contextOf(SpanContext span) {
        if (!span.isValid()) {
            return null;
        }
        Map<String, String> carrier = new HashMap<>(2);
        W3CTraceContextPropagator.getInstance().inject(Context.root().with(io.opentelemetry.api.trace.Span.wrap(span)),
                carrier, Map::put);
        return TraceContext.parse(carrier.get("traceparent"), carrier.get("tracestate"));
    }

    private static String shorten(String error) {
        return error.length() <= MAX_ERROR_LENGTH ? error : error.substring(0, MAX_ERROR_LENGTH) + "…";
    }

    /** A recording SDK span. */
    private static final class SdkSpan implements Tracing.Span {
        private final io.opentelemetry.api.trace.Span span;
        private final TraceContext context;

        SdkSpan(io.opentelemetry.api.trace.Span span) {
            this.span = span;
            this.context = contextOf(span.getSpanContext());
        }

        @Override
        public TraceContext context() {
            return context;
        }

        @Override
        public void attribute(String key, String value) {
            if (value != null) {
                span.setAttribute(key, value);
            }
        }

        @Override
        public void attribute(String key, long value) {
            span.setAttribute(key, value);
        }

        @Override
        public Tracing.Scope makeCurrent() {
            io.opentelemetry.context.Scope scope = Context.current().with(span).makeCurrent();
            return scope::close;
        }

        @Override
        public void end(String error) {
            if (error != null) {
                span.setStatus(StatusCode.ERROR, shorten(error));
                span.setAttribute(ERROR, shorten(error));
            }
            span.end();
        }
    }
}
