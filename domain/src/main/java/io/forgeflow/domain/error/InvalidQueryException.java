package io.forgeflow.domain.error;

/** A malformed query parameter (limit, cursor, status filter). The API answers 400 naming the parameter. */
public final class InvalidQueryException extends RuntimeException {
    private final String field;

    public InvalidQueryException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
