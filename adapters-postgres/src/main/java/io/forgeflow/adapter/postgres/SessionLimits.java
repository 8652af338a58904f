package io.forgeflow.adapter.postgres;

import java.time.Duration;
import java.util.Objects;

/**
 * Server-side limits of a ForgeFlow database session, sent as the startup {@code options} of every connection, so
 * that no statement, lock wait or forgotten transaction can hold a connection (and the rows it locks) for ever. A
 * paused lock holder then costs a heartbeat a few seconds, not the lease.
 *
 * @param statementTimeout      {@code statement_timeout}: the longest a single statement may run
 * @param lockTimeout           {@code lock_timeout}: the longest a statement waits for a row or table lock
 * @param idleInTransaction     {@code idle_in_transaction_session_timeout}: a session that leaves a transaction open
 *                              and silent this long is ended by the server, releasing its locks
 * @param idleSession           {@code idle_session_timeout}: a session silent this long outside a transaction is ended
 *                              by the server; only for the leader's session, zero (off) for the others
 */
public record SessionLimits(Duration statementTimeout, Duration lockTimeout, Duration idleInTransaction,
                            Duration idleSession) {
    public SessionLimits {
        Objects.requireNonNull(statementTimeout, "statementTimeout");
        Objects.requireNonNull(lockTimeout, "lockTimeout");
        Objects.requireNonNull(idleInTransaction, "idleInTransaction");
        Objects.requireNonNull(idleSession, "idleSession");
        for (Duration d : new Duration[] {statementTimeout, lockTimeout, idleInTransaction, idleSession}) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("session limits must not be negative, got " + d);
            }
        }
    }

    /** The same limits, with the server ending the session after {@code idle} of silence. */
    public SessionLimits withIdleSession(Duration idle) {
        return new SessionLimits(statementTimeout, lockTimeout, idleInTransaction, idle);
    }

    /** The libpq/pgjdbc {@code options} value: {@code -c statement_timeout=30000 -c lock_timeout=...} (milliseconds). */
    public String options() {
        StringBuilder options = new StringBuilder()
                .append("-c statement_timeout=").append(statementTimeout.toMillis())
                .append(" -c lock_timeout=").append(lockTimeout.toMillis())
                .append(" -c idle_in_transaction_session_timeout=").append(idleInTransaction.toMillis());
        if (!idleSession.isZero()) {
            options.append(" -c idle_session_timeout=").append(idleSession.toMillis());
        }
        return options.toString();
    }

    /**
     * Whether {@code sqlState} is one of the errors these limits raise: 57014 (a statement cancelled by
     * {@code statement_timeout}), 55P03 (a lock not obtained within {@code lock_timeout}), 25P03 (a session ended by
     * {@code idle_in_transaction_session_timeout}) or 57P05 (ended by {@code idle_session_timeout}).
     */
    public static boolean isLimitHit(String sqlState) {
        return "57014".equals(sqlState) || "55P03".equals(sqlState) || "25P03".equals(sqlState)
                || "57P05".equals(sqlState);
    }
}
