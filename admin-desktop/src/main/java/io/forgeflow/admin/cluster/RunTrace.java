package io.forgeflow.admin.cluster;

/**
 * A run's trace as the server sent it: {@code trace_id} (W3C, 32 hex digits; null when the run is not traced) and
 * {@code trace_url} (the node's {@code FORGEFLOW_TRACE_URL_TEMPLATE} filled in; null when the node has none).
 */
public record RunTrace(String traceId, String traceUrl) {
    public static final RunTrace NONE = new RunTrace(null, null);

    public RunTrace {
        traceId = JobQuery.blankToNull(traceId);
        traceUrl = JobQuery.blankToNull(traceUrl);
    }
}
