package io.forgeflow.domain.error;

/** The request conflicts with the current state (resume a cancelled job, reuse an idempotency key). 409. */
public final class ConflictException extends RuntimeException {
    private final String field;

    public ConflictException(String message) {
        this(null, message);
    }

    public ConflictException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
