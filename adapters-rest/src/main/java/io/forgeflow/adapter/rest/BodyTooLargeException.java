package io.forgeflow.adapter.rest;

import java.io.IOException;

/** Thrown by the body stream of {@link BodyLimitFilter} once a body (chunked, or lying about its length) passes the limit. */
final class BodyTooLargeException extends IOException {
    private final long limit;

    BodyTooLargeException(long limit) {
        super("request body exceeds " + limit + " bytes");
        this.limit = limit;
    }

    long limit() {
        return limit;
    }
}
