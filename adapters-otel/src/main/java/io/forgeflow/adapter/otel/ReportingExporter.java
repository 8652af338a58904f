package io.forgeflow.adapter.otel;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells the operator once that the OTLP receiver does not take spans (and once that it does again), instead of a
 * message per batch; the spans of a failed batch are dropped and jobs run on regardless.
 */
final class ReportingExporter implements SpanExporter {
    private static final Logger LOG = LoggerFactory.getLogger(ReportingExporter.class);
    private final SpanExporter delegate;
    private final String url;
    private final SpanExporter unused;
    private final AtomicBoolean failing = new AtomicBoolean();

    /** {@code unused}: an exporter built by the SDK but replaced by {@code delegate}, shut down with it. */
    ReportingExporter(SpanExporter delegate, String url, SpanExporter unused) {
        this.delegate = delegate;
        this.url = url;
        this.unused = unused;
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        CompletableResultCode result;
        try {
            result = delegate.export(spans);
        } catch (RuntimeException e) {
            result = CompletableResultCode.ofExceptionalFailure(e);
        }
        CompletableResultCode reported = result;
        result.whenComplete(() -> {
            if (reported.isSuccess()) {
                if (failing.compareAndSet(true, false)) {
                    LOG.info("OTLP receiver {} takes spans again", url);
                }
            } else if (failing.compareAndSet(false, true)) {
                Throwable cause = reported.getFailureThrowable();
                LOG.warn("OTLP receiver {} did not take {} span(s) ({}): spans are dropped until it does; jobs run "
                        + "on (said once)", url, spans.size(), cause == null ? "refused" : cause.toString());
            }
        });
        return result;
    }

    @Override
    public CompletableResultCode flush() {
        return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
        if (unused != null) {
            unused.shutdown();
        }
        return delegate.shutdown();
    }
}
