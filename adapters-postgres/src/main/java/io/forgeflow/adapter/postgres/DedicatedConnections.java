package io.forgeflow.adapter.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * Opens connections outside the pool, for the users that hold a session for a long time: the leader's advisory lock
 * ({@link AdvisoryLockLeaderElection}) and the notifications ({@link PostgresNotifier}: one connection to LISTEN, one
 * to NOTIFY). They must reach PostgreSQL directly or through a session-pooling proxy, never through PgBouncer in
 * transaction mode (which would move the session's lock and LISTEN between server connections).
 */
public final class DedicatedConnections {

    private DedicatedConnections() {
    }

    /**
     * Makes the session commit without waiting for its WAL flush ({@code synchronous_commit = off}), for a connection
     * that only sends notifications. A {@code NOTIFY} takes a transaction id, so its commit writes a commit record
     * and, by default, waits for that record's own flush (up to hundreds a second, each one a disk flush on the
     * database's host) although nothing it records needs to survive a crash. Listeners are told at commit, flushed or
     * not. Call it right after opening the connection, with auto-commit on, so that it holds for the session.
     */
    static void commitWithoutWaitingForTheFlush(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET synchronous_commit = off");
        }
    }

    /**
     * A supplier of new connections to {@code jdbcUrl}; each call opens one (auto-commit on, TCP keep-alive on). A
     * failure to connect is thrown as an {@link IllegalStateException}.
     *
     * @param purpose shown as {@code application_name} in {@code pg_stat_activity}, e.g. {@code forgeflow-leader}
     */
    public static Supplier<Connection> to(String jdbcUrl, String user, String password, String purpose) {
        return to(jdbcUrl, user, password, purpose, PostgresSchema.DEFAULT, null);
    }

    /** As {@link #to(String, String, String, String)}, with {@code schema} as the sessions' whole {@code search_path}. */
    public static Supplier<Connection> to(String jdbcUrl, String user, String password, String purpose, String schema) {
        return to(jdbcUrl, user, password, purpose, schema, null);
    }

    /**
     * As {@link #to(String, String, String, String, String)}, each session started with {@code limits} (null: the
     * server's defaults).
     */
    public static Supplier<Connection> to(String jdbcUrl, String user, String password, String purpose, String schema,
                                          SessionLimits limits) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        PostgresSchema.require(schema);
        return () -> {
            Properties properties = properties(user, password, purpose);
            properties.setProperty(PostgresSchema.CONNECTION_PROPERTY, schema);
            if (limits != null) {
                properties.setProperty("options", limits.options());
            }
            return open(jdbcUrl, properties, "a dedicated database connection", purpose);
        };
    }

    /**
     * A supplier of new connections through a transaction pooler (PgBouncer in transaction mode) for work that holds no
     * session state (NOTIFY, a probe): no startup parameter the pooler would refuse or drop (no {@code options}, no
     * {@code search_path}) and no named server-side prepared statement.
     */
    public static Supplier<Connection> throughPooler(String jdbcUrl, String user, String password, String purpose) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        return () -> {
            Properties properties = properties(user, password, purpose);
            properties.setProperty("prepareThreshold", "0");
            return open(jdbcUrl, properties, "a connection through the pooler", purpose);
        };
    }

    /** Credentials, TCP keep-alive and the session's name in {@code pg_stat_activity}. */
    private static Properties properties(String user, String password, String purpose) {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        properties.setProperty("tcpKeepAlive", "true");
        if (purpose != null) {
            properties.setProperty("ApplicationName", purpose);
        }
        return properties;
    }

    private static Connection open(String jdbcUrl, Properties properties, String what, String purpose) {
        try {
            return DriverManager.getConnection(jdbcUrl, properties);
        } catch (SQLException e) {
            throw new IllegalStateException("could not open " + what + " (" + (purpose == null ? "unnamed" : purpose)
                    + "): " + e.getMessage(), e);
        }
    }

    /** The connections of {@code connections} as a {@link javax.sql.DataSource} (each call opens one). */
    public static javax.sql.DataSource dataSource(Supplier<Connection> connections) {
        Objects.requireNonNull(connections, "connections");
        return new javax.sql.DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                try {
                    return connections.get();
                } catch (IllegalStateException e) {
                    throw new SQLException(e.getMessage(), "08001", e);
                }
            }

            @Override
            public Connection getConnection(String username, String password) throws SQLException {
                throw new java.sql.SQLFeatureNotSupportedException("these connections are opened as configured");
            }

            @Override
            public java.io.PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(java.io.PrintWriter out) {
                // no log writer: the driver logs through java.util.logging
            }

            @Override
            public void setLoginTimeout(int seconds) {
                // the URL's connectTimeout applies
            }

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public java.util.logging.Logger getParentLogger() throws java.sql.SQLFeatureNotSupportedException {
                throw new java.sql.SQLFeatureNotSupportedException("no parent logger");
            }

            @Override
            public <T> T unwrap(Class<T> type) throws SQLException {
                throw new SQLException("these connections wrap nothing");
            }

            @Override
            public boolean isWrapperFor(Class<?> type) {
                return false;
            }
        };
    }
}
