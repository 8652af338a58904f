package io.forgeflow.domain.error;

/**
 * The store cannot be reached now (the database restarts, fails over, or ended the connection): nothing about the
 * request is wrong, and the same request may succeed in a moment. The API answers 503 {@code unavailable} with
 * {@code Retry-After}. Adapters throw it, or leave their own exception whose cause chain shows the outage (the REST
 * adapter is given a classifier for those).
 */
public final class UnavailableException extends RuntimeException {
    public UnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether {@code t} or one of its causes is an {@link UnavailableException}. */
    public static boolean in(Throwable t) {
        int depth = 0;
        for (Throwable c = t; c != null && depth < 64; c = c.getCause(), depth++) {
            if (c instanceof UnavailableException) {
                return true;
            }
        }
        return false;
    }
}
