package io.forgeflow.adapter.postgres;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.PGConnection;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Runs the hot statements ({@link SqlFile}s) on plain JDBC, each in its own transaction (auto-commit), on a connection
 * of the same pool the adapter's {@link Jdbi} uses.
 *
 * <p>The statement is prepared on the driver's own connection, unwrapped from the pool's proxy: the pool wraps every
 * statement in a reflective proxy, which cost more per call than binding the values. The pool still owns the
 * connection (it is returned, not closed), and every statement is closed here.
 */
final class JdbcStatements {
    private final DataSource dataSource;
    private final Jdbi jdbi;

    private JdbcStatements(DataSource dataSource, Jdbi jdbi) {
        this.dataSource = dataSource;
        this.jdbi = jdbi;
    }

    /** Over the pool of a Jdbi made by {@link PostgresJdbi#create}, or over the Jdbi's own connections otherwise. */
    static JdbcStatements of(Jdbi jdbi) {
        Objects.requireNonNull(jdbi, "jdbi");
        return new JdbcStatements(PostgresJdbi.dataSourceOf(jdbi), jdbi);
    }

    /** Prepares the statement: a lambda passing constant text, {@code c -> c.prepareStatement(CLAIM_SQL)}. */
    @FunctionalInterface
    interface Preparer {
        PreparedStatement prepare(Connection connection) throws SQLException;
    }

    /** Binds the statement's values (see {@link SqlFile#bind}). */
    @FunctionalInterface
    interface Binding {
        void bind(PreparedStatement statement) throws SQLException;
    }

    /** Maps the current row. */
    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Executes a statement that returns rows and maps every row. */
    <T> List<T> list(SqlFile file, Preparer preparer, Binding binding, RowMapper<T> mapper) {
        return withConnection(file, connection -> {
            try (PreparedStatement statement = preparer.prepare(connection)) {
                binding.bind(statement);
                try (ResultSet rows = statement.executeQuery()) {
                    List<T> result = new ArrayList<>();
                    while (rows.next()) {
                        result.add(mapper.map(rows));
                    }
                    return result;
                }
            }
        });
    }

    /** Work on one connection; it prepares, binds and closes its own statements. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs the work in one transaction on one connection and commits it. A failure before the commit rolls the
     * transaction back and throws {@link GroupCommit.NothingWritten}; a failure of the commit itself (whether it took
     * effect is then unknown) throws {@link StatementFailedException}.
     */
    <T> T inTransaction(SqlFile file, Work<T> work) {
        return withConnection(file, connection -> {
            connection.setAutoCommit(false);
            try {
                T result;
                try {
                    result = work.run(connection);
                } catch (SQLException | RuntimeException e) {
                    try {
                        connection.rollback();
                    } catch (SQLException rollback) {
                        e.addSuppressed(rollback);
                    }
                    throw new GroupCommit.NothingWritten(file.name() + " failed and was rolled back: "
                            + e.getMessage(), e);
                }
                connection.commit();
                return result;
            } finally {
                connection.setAutoCommit(true);
            }
        });
    }

    private <T> T withConnection(SqlFile file, Work<T> work) {
        try {
            if (dataSource == null) {
                try (Handle handle = jdbi.open()) {
                    return work.run(handle.getConnection());
                }
            }
            Connection pooled;
            try {
                pooled = dataSource.getConnection();
            } catch (SQLException noConnection) {
                // whatever the pool says (refused, timed out, "Validation Query Failed" on a fresh connection the
                // server ended at once), no connection means the database is unavailable to this node now
                throw DatabaseOutages.noConnection(noConnection);
            }
            try (pooled) {
                return work.run(driverConnection(pooled));
            }
        } catch (SQLException e) {
            throw new StatementFailedException(file.name(), e);
        }
    }

    /**
     * The driver's connection behind a pool's proxy, when the pool gives it out; the proxy otherwise, and always a
     * connection bound by a caller's deadline (its statements must be made through it).
     */
    private static Connection driverConnection(Connection pooled) throws SQLException {
        if (pooled instanceof PGConnection || pooled instanceof DeadlineBoundDataSource.BoundConnection) {
            return pooled;
        }
        if (pooled.isWrapperFor(PGConnection.class)) {
            Object driver = pooled.unwrap(PGConnection.class);
            if (driver instanceof Connection connection) {
                return connection;
            }
        }
        return pooled;
    }

    /** A statement of this module's .sql files failed; the cause is the driver's {@link SQLException}. */
    static final class StatementFailedException extends RuntimeException {
        StatementFailedException(String statement, SQLException cause) {
            super(statement + " failed: " + cause.getMessage() + " [SQL state " + cause.getSQLState() + "]", cause);
        }
    }
}
