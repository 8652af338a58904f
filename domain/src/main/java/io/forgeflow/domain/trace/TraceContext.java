package io.forgeflow.domain.trace;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * A W3C trace context: a {@code traceparent} ({@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>}) and an
 * optional {@code tracestate}. Jobs keep the context of their submission; runs keep the context of their own
 * {@code forgeflow.run} span and of the submission that caused them.
 */
public record TraceContext(String traceparent, String tracestate) {
    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    /** The W3C limit is 32 list members; a longer header is dropped, not cut. */
    public static final int MAX_TRACESTATE_LENGTH = 512;

    public TraceContext {
        Objects.requireNonNull(traceparent, "traceparent");
        if (!isValid(traceparent)) {
            throw new IllegalArgumentException("not a W3C traceparent: " + traceparent);
        }
        tracestate = tracestate == null || tracestate.isBlank() || tracestate.length() > MAX_TRACESTATE_LENGTH
                ? null : tracestate.trim();
    }

    /**
     * The context of a {@code traceparent} header (and its {@code tracestate}), or null when it is missing or not
     * valid: as W3C Trace Context says, an invalid header is ignored and a new trace starts.
     */
    public static TraceContext parse(String traceparent, String tracestate) {
        if (traceparent == null) {
            return null;
        }
        String value = traceparent.trim().toLowerCase(Locale.ROOT);
        return isValid(value) ? new TraceContext(value, tracestate) : null;
    }

    /** Version 00 (or a later version we read as 00), not all-zero ids, and not version ff. */
    public static boolean isValid(String traceparent) {
        if (traceparent == null || traceparent.length() != 55 || !TRACEPARENT.matcher(traceparent).matches()) {
            return false;
        }
        return !traceparent.startsWith("ff") && !traceparent.substring(3, 35).equals("0".repeat(32))
                && !traceparent.substring(36, 52).equals("0".repeat(16));
    }

    public String traceId() {
        return traceparent.substring(3, 35);
    }

    public String spanId() {
        return traceparent.substring(36, 52);
    }

    public boolean sampled() {
        return (Integer.parseInt(traceparent.substring(53, 55), 16) & 1) == 1;
    }

    /** A new span of the same trace (same flags and state). */
    public TraceContext child() {
        return new TraceContext("00-" + traceId() + "-" + randomHex(16) + "-" + traceparent.substring(53), tracestate);
    }

    /** A root span of a new trace, sampled. */
    public static TraceContext newTrace() {
        return new TraceContext("00-" + randomHex(32) + "-" + randomHex(16) + "-01", null);
    }

    private static String randomHex(int digits) {
        StringBuilder out = new StringBuilder(digits);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (out.length() < digits) {
            String part = Long.toHexString(random.nextLong());
            out.append("0".repeat(16 - part.length())).append(part);
        }
        String hex = out.substring(0, digits);
        return hex.equals("0".repeat(digits)) ? randomHex(digits) : hex;
    }
}
