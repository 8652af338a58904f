package io.forgeflow.adapter.rest;

import java.io.IOException;

/** Thrown by the body stream of {@link BodyLimitFilter} once an unfinished body arrives below the minimum rate. */
final class BodyTooSlowException extends IOException {
    private final long minBytesPerSecond;

    BodyTooSlowException(long minBytesPerSecond) {
        super("the request body arrived slower than " + minBytesPerSecond + " bytes per second");
        this.minBytesPerSecond = minBytesPerSecond;
    }

    /** The API's answer to it: 408 (the connection is closed by {@link BodyLimitFilter}). */
    ApiException refusal() {
        return new ApiException(408, "the request body arrived slower than the node accepts (" + minBytesPerSecond
                + " bytes per second after a short grace): send it at once, and again", null);
    }
}
