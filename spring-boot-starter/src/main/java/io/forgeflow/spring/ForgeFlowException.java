package io.forgeflow.spring;

import java.sql.SQLException;

/**
 * Enqueueing failed: the database refused the job (SQLSTATE {@code 22023} with a message naming the field and how to
 * fix it, {@code 23505} for an idempotency key reused with another job) or could not be reached. Unchecked, so a
 * {@code @Transactional} method that lets it through rolls back.
 */
public class ForgeFlowException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String sqlState;

    public ForgeFlowException(String message, Throwable cause) {
        super(message, cause);
        this.sqlState = cause instanceof SQLException sql ? sql.getSQLState() : null;
    }

    /** The database's SQLSTATE, or null when the failure came from elsewhere. */
    public String sqlState() {
        return sqlState;
    }
}
