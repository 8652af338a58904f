package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.error.UnavailableException;
import org.jdbi.v3.core.ConnectionException;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;

/**
 * Tells a failure because the database is away (restarting, failing over, ending connections, refusing more) from any
 * other failure, by the cause chain, whatever wraps it (JDBI, the pool, {@link JdbcStatements}, {@link GroupCommit}):
 * <ul>
 *   <li>an {@link SQLException} of SQLSTATE class {@code 08} (connection exception: refused, closed, broken), or
 *       {@code 57P01}/{@code 57P02}/{@code 57P03} (admin shutdown, crash shutdown, cannot connect now: the server is
 *       stopping or starting), or {@code 53300} (too many connections);</li>
 *   <li>JDBC's connection exception types ({@link SQLTransientConnectionException},
 *       {@link SQLNonTransientConnectionException}, {@link SQLRecoverableException});</li>
 *   <li>the pool giving up waiting for a connection (Tomcat JDBC's {@code PoolExhaustedException}, HikariCP's
 *       timeout is an {@link SQLTransientConnectionException});</li>
 *   <li>any failure to obtain a connection, whatever the pool's words: JDBI's {@link ConnectionException}, and
 *       {@link #noConnection} where this module asks the pool itself (Tomcat JDBC answers a fresh connection that the
 *       server ended at once with a bare "Validation Query Failed");</li>
 *   <li>an {@link UnavailableException} already.</li>
 * </ul>
 * Anything else (a constraint, a timeout of a slow statement, a bug) is not an outage.
 */
public final class DatabaseOutages {
    private static final Set<String> STATES = Set.of("57P01", "57P02", "57P03", "53300");
    private static final int MAX_DEPTH = 64;

    private DatabaseOutages() {
    }

    /** Whether {@code failure} happened because the database is away (see the class comment). */
    public static boolean isOutage(Throwable failure) {
        return reason(failure).isPresent();
    }

    /** The outage in {@code failure}'s cause chain, in short words (the SQLSTATE or exception type), if any. */
    public static Optional<String> reason(Throwable failure) {
        int depth = 0;
        for (Throwable c = failure; c != null && depth < MAX_DEPTH; c = c.getCause(), depth++) {
            if (c instanceof UnavailableException) {
                return Optional.of("unavailable");
            }
            if (c instanceof ConnectionException) {
                return Optional.of("no connection: " + c.getMessage());
            }
            if (c instanceof SQLException sql) {
                Optional<String> found = ofSql(sql);
                if (found.isPresent()) {
                    return found;
                }
                // pgjdbc and pools chain the driver's cause through getNextException as well
                for (SQLException next = sql.getNextException(); next != null && depth < MAX_DEPTH;
                     next = next.getNextException(), depth++) {
                    found = ofSql(next);
                    if (found.isPresent()) {
                        return found;
                    }
                }
            }
            for (Throwable suppressed : c.getSuppressed()) {
                if (suppressed instanceof SQLException sql && ofSql(sql).isPresent()) {
                    return ofSql(sql);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * {@code failure} as an {@link UnavailableException} (keeping it as the cause) when it is an outage, else
     * {@code failure} itself.
     */
    public static RuntimeException translate(RuntimeException failure) {
        if (failure instanceof UnavailableException) {
            return failure;
        }
        Optional<String> reason = reason(failure);
        if (reason.isEmpty()) {
            return failure;
        }
        return new UnavailableException("the database is unavailable (" + reason.get() + "): retry later", failure);
    }

    /** The failure of the pool to give a connection, as the outage it is. */
    static UnavailableException noConnection(SQLException failure) {
        return new UnavailableException("no connection to the database (" + failure.getMessage() + "): retry later",
                failure);
    }

    private static Optional<String> ofSql(SQLException sql) {
        String state = sql.getSQLState();
        if (state != null && (state.startsWith("08") || STATES.contains(state))) {
            return Optional.of("SQLSTATE " + state);
        }
        if (sql instanceof SQLTransientConnectionException || sql instanceof SQLNonTransientConnectionException
                || sql instanceof SQLRecoverableException) {
            return Optional.of(sql.getClass().getSimpleName());
        }
        if (sql.getClass().getSimpleName().equals("PoolExhaustedException")) {
            return Optional.of("connection pool timeout");
        }
        return Optional.empty();
    }
}
