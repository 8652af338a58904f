package io.forgeflow.domain.execution;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What an executor gets for one attempt.
 *
 * @param timeout        the attempt's budget (the job's timeout_seconds); the executor enforces it itself
 * @param cancellation   watched by the executor: once cancelled it stops as soon as it can
 * @param maxOutputBytes the most output to keep (the tail is kept)
 * @param traceparent    the W3C traceparent of the attempt's span, handed to the work (an http header, a shell
 *                       variable); null when the run is not traced
 * @param tracestate     the W3C tracestate that goes with it; null for none
 */
public record ExecutionContext(String runId, String jobId, int attempt, Map<String, Object> payload,
                               Duration timeout, Cancellation cancellation, int maxOutputBytes, String traceparent,
                               String tracestate) {

    public ExecutionContext(String runId, String jobId, int attempt, Map<String, Object> payload, Duration timeout,
                            Cancellation cancellation, int maxOutputBytes) {
        this(runId, jobId, attempt, payload, timeout, cancellation, maxOutputBytes, null, null);
    }

    public ExecutionContext(String runId, String jobId, int attempt, Map<String, Object> payload, Duration timeout,
                            Cancellation cancellation, int maxOutputBytes, String traceparent) {
        this(runId, jobId, attempt, payload, timeout, cancellation, maxOutputBytes, traceparent, null);
    }
    /** Default captured output: 64 KiB. */
    public static final int DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

    public ExecutionContext {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(cancellation, "cancellation");
        payload = payload == null ? Map.of() : payload;
        if (maxOutputBytes < 1) {
            throw new IllegalArgumentException("maxOutputBytes must be >= 1, was " + maxOutputBytes);
        }
    }
}
