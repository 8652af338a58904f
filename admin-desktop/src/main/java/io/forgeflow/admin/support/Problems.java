package io.forgeflow.admin.support;

import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;

/** Turns a failed call into one sentence an operator can act on. */
public final class Problems {
    private Problems() {
    }

    /** What went wrong while doing something ("pause job nightly"), and what to do about it. */
    public static String describe(String doing, Throwable failure) {
        if (failure instanceof ForgeFlowUnavailableException u) {
            return "Could not " + doing + ": the server is unreachable (" + cause(u) + "). It is retried; check the "
                    + "server and the network.";
        }
        if (failure instanceof ForgeFlowApiException api) {
            if (api.status() == 403 && "tenant_forbidden".equals(api.code())) { // a tenant-bound token
                return "Could not " + doing + ": " + api.error() + " (HTTP 403)";
            }
            if (api.isAuthenticationFailure()) {
                return "Could not " + doing + ": the server refused the API token (HTTP " + api.status() + ": "
                        + api.error() + "). Reconnect with a valid token.";
            }
            return "Could not " + doing + ": " + api.error() + " (HTTP " + api.status() + ")";
        }
        String message = failure.getMessage();
        return "Could not " + doing + ": " + (message == null ? failure.getClass().getSimpleName() : message);
    }

    /** The innermost reason of a network failure, e.g. "Connection refused". */
    public static String cause(ForgeFlowUnavailableException failure) {
        Throwable root = failure.getCause() == null ? failure : failure.getCause();
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
    }
}
