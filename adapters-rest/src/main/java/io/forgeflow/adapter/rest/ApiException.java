package io.forgeflow.adapter.rest;

/**
 * A request this adapter refuses before it reaches a use case (a body that is not JSON, too large, the wrong
 * content type): the HTTP status, a message that says how to fix it, and the field at fault when there is one.
 */
final class ApiException extends RuntimeException {
    private final int status;
    private final String field;
    private final String code;

    ApiException(int status, String message, String field) {
        this(status, message, field, null);
    }

    /** With a code finer than the status's ({@code tenant_forbidden}); null: the status's. */
    ApiException(int status, String message, String field, String code) {
        super(message, null, false, false);
        this.status = status;
        this.field = field;
        this.code = code;
    }

    static ApiException badRequest(String message) {
        return new ApiException(400, message, null);
    }

    static ApiException tooLarge(long limit) {
        return new ApiException(413, "the request body is larger than " + BodyLimitFilter.describe(limit)
                + ": send a smaller document", null);
    }

    int status() {
        return status;
    }

    String field() {
        return field;
    }

    String code() {
        return code;
    }
}
