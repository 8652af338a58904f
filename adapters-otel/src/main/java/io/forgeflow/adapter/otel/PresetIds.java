package io.forgeflow.adapter.otel;

import io.opentelemetry.sdk.trace.IdGenerator;

/**
 * Random ids, except for the next span started on this thread after {@link #preset}: a run's span is recorded when the
 * run ends, by whichever node ends it, under the ids stored with the run when it was created (its attempts, started
 * earlier, are already its children).
 */
final class PresetIds implements IdGenerator {
    private static final ThreadLocal<String[]> NEXT = new ThreadLocal<>();
    private final IdGenerator random = IdGenerator.random();

    /** The next span started on this thread gets these ids (trace id used only when it has no parent). */
    static void preset(String traceId, String spanId) {
        NEXT.set(new String[] {traceId, spanId});
    }

    static void clear() {
        NEXT.remove();
    }

    @Override
    public String generateSpanId() {
        String[] next = NEXT.get();
        if (next != null && next[1] != null) {
            String id = next[1];
            next[1] = null;
            return id;
        }
        return random.generateSpanId();
    }

    @Override
    public String generateTraceId() {
        String[] next = NEXT.get();
        if (next != null && next[0] != null) {
            String id = next[0];
            next[0] = null;
            return id;
        }
        return random.generateTraceId();
    }
}
