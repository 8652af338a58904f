package io.forgeflow.client;

import java.io.IOException;

/**
 * The server could not be reached or stopped answering: connection refused, unknown host, timeout, connection reset.
 * Nothing is known about whether a non-idempotent request took effect, so retry with an idempotency key.
 */
public final class ForgeFlowUnavailableException extends ForgeFlowException {
    private final String baseUrl;

    public ForgeFlowUnavailableException(String baseUrl, IOException cause) {
        super("ForgeFlow server at " + baseUrl + " is unreachable: " + describe(cause), cause);
        this.baseUrl = baseUrl;
    }

    /** The server URL that could not be reached. */
    public String baseUrl() {
        return baseUrl;
    }

    private static String describe(IOException cause) {
        String message = cause.getMessage();
        String kind = cause.getClass().getSimpleName();
        return message == null || message.isBlank() ? kind : kind + " (" + message + ")";
    }
}
