package io.forgeflow.adapter.rest;

import io.forgeflow.domain.trace.TraceContext;

/**
 * Where a trace can be seen: {@code FORGEFLOW_TRACE_URL_TEMPLATE} (such as {@code http://tempo/trace/{trace_id}})
 * with the trace id in place of {@code {trace_id}}. Set once by the composition root; unset, responses show no URL.
 */
public final class TraceLinks {
    public static final String PLACEHOLDER = "{trace_id}";
    private static volatile String template;

    private TraceLinks() {
    }

    /** The template for this process (null or blank: none). */
    public static void configure(String urlTemplate) {
        template = urlTemplate == null || urlTemplate.isBlank() ? null : urlTemplate.trim();
    }

    static String traceId(TraceContext trace) {
        return trace == null ? null : trace.traceId();
    }

    static String url(TraceContext trace) {
        String t = template;
        return t == null || trace == null ? null : t.replace(PLACEHOLDER, trace.traceId());
    }
}
