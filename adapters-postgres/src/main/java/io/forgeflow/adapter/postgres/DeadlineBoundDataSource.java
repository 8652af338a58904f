package io.forgeflow.adapter.postgres;

import io.forgeflow.application.support.CallDeadline;
import org.postgresql.jdbc.PgStatement;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The pool as every adapter of this module sees it: on a thread working for a caller's {@link CallDeadline}, each
 * statement is given the time left as its query timeout (the driver cancels it then, lock waits included), and a
 * statement started after the deadline is refused. Elsewhere the pool's own connection, untouched: no cost.
 * Nothing is set on the session, so nothing has to be set back. {@link JdbcStatements} prepares its statements on such a
 * connection itself ({@link BoundConnection}), not on the driver's connection behind it.
 */
final class DeadlineBoundDataSource extends ForwardingDataSource {
    /** SQLSTATE query_canceled: what the driver reports for a statement it cancelled at its timeout. */
    static final String CANCELLED = "57014";
    private static final Set<String> CREATES = Set.of("createStatement", "prepareStatement", "prepareCall");

    DeadlineBoundDataSource(DataSource pool) {
        super(pool);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return bound(pool.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return bound(pool.getConnection(username, password));
    }

    private static Connection bound(Connection connection) throws SQLException {
        OptionalLong left = CallDeadline.remainingMillis();
        if (left.isEmpty()) {
            return connection;
        }
        if (left.getAsLong() == 0) {
            connection.close();
            throw passed();
        }
        return (Connection) Proxy.newProxyInstance(DeadlineBoundDataSource.class.getClassLoader(),
                new Class<?>[] {BoundConnection.class}, new Bounded(connection));
    }

    private static SQLException passed() {
        return new SQLException("not run: the caller's deadline passed", CANCELLED);
    }

    /** A connection whose statements are bounded by a caller's deadline: prepare statements on it, not behind it. */
    interface BoundConnection extends Connection {
    }

    /** Gives every statement made on the connection the time left. */
    private static final class Bounded implements InvocationHandler {
        private final Connection connection;

        Bounded(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            Object result;
            try {
                result = method.invoke(connection, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (CREATES.contains(name)) {
                limit((Statement) result);
            }
            return result;
        }

        private static void limit(Statement statement) throws SQLException {
            long left = CallDeadline.remainingMillis().orElse(Long.MAX_VALUE);
            if (left == 0) {
                statement.close();
                throw passed();
            }
            if (left == Long.MAX_VALUE) {
                return;
            }
            if (statement.isWrapperFor(PgStatement.class)) {
                statement.unwrap(PgStatement.class).setQueryTimeoutMs(left);
            } else {
                statement.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, (left + 999) / 1000));
            }
        }
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || pool.isWrapperFor(type);
    }
}
