package io.forgeflow.client;

/**
 * The server answered with an error status. {@link #error()} is the API's {@code error} text (written for humans:
 * what is wrong and how to fix it), {@link #field()} the request field at fault, or null, and {@link #code()} the
 * API's stable machine-readable {@code code} ({@code validation_failed}, {@code not_found}, {@code conflict}...), or
 * null from a server that sends none.
 */
public final class ForgeFlowApiException extends ForgeFlowException {
    private final int status;
    private final String error;
    private final String field;
    private final String code;

    public ForgeFlowApiException(int status, String error, String field) {
        this(status, error, field, null);
    }

    public ForgeFlowApiException(int status, String error, String field, String code) {
        super("HTTP " + status + ": " + error + (field == null ? "" : " (field " + field + ")"), null);
        this.status = status;
        this.error = error;
        this.field = field;
        this.code = code;
    }

    /** The API's {@code code}, e.g. {@code not_found} or {@code idempotency_conflict}; null when the server sent none. */
    public String code() {
        return code;
    }

    /** The HTTP status, e.g. 404, 409 or 422. */
    public int status() {
        return status;
    }

    /** The API's {@code error} message, never null. */
    public String error() {
        return error;
    }

    /** The API's {@code field}: the request field at fault, or null when no single field is. */
    public String field() {
        return field;
    }

    /** 401 or 403: the server refused the credentials (a missing, wrong or insufficient API token). */
    public boolean isAuthenticationFailure() {
        return status == 401 || status == 403;
    }

    /** 404: the id (or the route, on a server that does not implement it) is unknown. */
    public boolean isNotFound() {
        return status == 404;
    }

    /** 409: the object is in a state that does not allow the action, or an idempotency key clashes. */
    public boolean isConflict() {
        return status == 409;
    }

    /** 422: a field fails validation; {@link #field()} names it. */
    public boolean isValidationFailure() {
        return status == 422;
    }
}
