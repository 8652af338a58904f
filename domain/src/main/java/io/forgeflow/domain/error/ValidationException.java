package io.forgeflow.domain.error;

/** A submitted value breaks a rule. The API answers 422 with {@code field} and this message. */
public final class ValidationException extends RuntimeException {
    private final String field;

    public ValidationException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The API name of the field at fault ({@code cron_expr}, {@code payload.url}), or null. */
    public String field() {
        return field;
    }
}
