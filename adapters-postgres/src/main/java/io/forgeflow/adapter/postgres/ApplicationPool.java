package io.forgeflow.adapter.postgres;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * An application's own connection pool, lent to ForgeFlow (an embedded worker): while ForgeFlow holds a borrowed
 * connection, its session is ForgeFlow's (its schema as the whole {@code search_path}, the {@link SessionLimits},
 * auto-commit on, read committed, read-write), and it goes back to the pool exactly as it came: every setting
 * changed is set back to the value read when it was borrowed. One round trip on borrowing (read and set in one
 * statement) and one on giving back.
 *
 * <p>{@link #sessions(String)} lends connections that are held for long (LISTEN, NOTIFY): given back, they also
 * stop listening. {@link #leaderSessions} lends the scheduler leader's: the server ends it after a silence, and given
 * back it releases every session-level advisory lock, so no borrower of the pool inherits the leadership. These are
 * connections of the pool, counted against its size (docs: an embedded worker holds two or three for good).
 */
public final class ApplicationPool {
    private static final Logger LOG = LoggerFactory.getLogger(ApplicationPool.class);

    private final DataSource pool;
    private final String schema;
    private final SessionLimits limits;
    private final DataSource scoped;

    /**
     * @param pool   the application's pool (any {@link DataSource} of PostgreSQL connections)
     * @param schema ForgeFlow's schema ({@link PostgresSchema#require})
     * @param limits the limits of ForgeFlow's statements on these sessions
     */
    public ApplicationPool(DataSource pool, String schema, SessionLimits limits) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.schema = PostgresSchema.require(schema);
        this.limits = Objects.requireNonNull(limits, "limits");
        this.scoped = new ScopedDataSource();
    }

    /** A {@link DataSource} whose connections are scoped to ForgeFlow while borrowed (for {@link PostgresJdbi#create}). */
    public DataSource dataSource() {
        return scoped;
    }

    /** Connections held for long (LISTEN or NOTIFY sessions), named {@code purpose} in {@code pg_stat_activity}. */
    public Supplier<Connection> sessions(String purpose) {
        return () -> borrowOrThrow(settings("forgeflow " + purpose, null), true);
    }

    /** The scheduler leader's session: the server ends it after {@code idle} of silence (a leader that froze). */
    public Supplier<Connection> leaderSessions(Duration idle) {
        return () -> borrowOrThrow(settings("forgeflow scheduler leadership", idle), true);
    }

    private Map<String, String> settings(String applicationName, Duration idleSession) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("search_path", schema);
        s.put("statement_timeout", Long.toString(limits.statementTimeout().toMillis()));
        s.put("lock_timeout", Long.toString(limits.lockTimeout().toMillis()));
        s.put("idle_in_transaction_session_timeout", Long.toString(limits.idleInTransaction().toMillis()));
        s.put("default_transaction_isolation", "read committed");
        s.put("default_transaction_read_only", "off");
        s.put("application_name", applicationName);
        s.put("idle_session_timeout", idleSession == null ? "0" : Long.toString(idleSession.toMillis()));
        s.put("synchronous_commit", null); // not set here, but a NOTIFY session sets it: read to be set back
        return s;
    }

    private Connection borrowOrThrow(Map<String, String> settings, boolean held) {
        try {
            return borrow(settings, held);
        } catch (SQLException e) {
            throw new IllegalStateException("could not borrow a connection from the application's pool: "
                    + e.getMessage(), e);
        }
    }

    private Connection borrow(Map<String, String> settings, boolean held) throws SQLException {
        Connection raw = pool.getConnection();
        try {
            boolean autoCommit = raw.getAutoCommit();
            if (!autoCommit) {
                raw.setAutoCommit(true);
            }
            boolean readOnly = raw.isReadOnly();
            if (readOnly) {
                raw.setReadOnly(false);
            }
            Map<String, String> previous = swap(raw, settings);
            Lent lent = new Lent(raw, previous, autoCommit, readOnly, held);
            return (Connection) Proxy.newProxyInstance(ApplicationPool.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, lent);
        } catch (SQLException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /**
     * Reads the current values of {@code settings}' names, then sets those with a value (a null value: only read, to
     * be set back), in one statement (the read is a materialized CTE, evaluated first). Returns the values read; a
     * setting this server does not have is skipped.
     */
    private static Map<String, String> swap(Connection connection, Map<String, String> settings) throws SQLException {
        List<String> names = new ArrayList<>(settings.keySet());
        StringBuilder sql = new StringBuilder("WITH old AS MATERIALIZED (SELECT ");
        for (int i = 0; i < names.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("current_setting(?, true) AS o").append(i);
        }
        sql.append(") SELECT old.*");
        for (int i = 0; i < names.size(); i++) {
            if (settings.get(names.get(i)) != null) {
                sql.append(", CASE WHEN old.o").append(i).append(" IS NULL THEN NULL ELSE set_config(?, ?, false) END");
            }
        }
        sql.append(" FROM old");
        Map<String, String> previous = new LinkedHashMap<>();
        try (PreparedStatement st = connection.prepareStatement(sql.toString())) {
            int p = 1;
            for (String name : names) {
                st.setString(p++, name);
            }
            for (String name : names) {
                if (settings.get(name) != null) {
                    st.setString(p++, name);
                    st.setString(p++, settings.get(name));
                }
            }
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                for (int i = 0; i < names.size(); i++) {
                    String value = rs.getString(i + 1);
                    if (value != null) {
                        previous.put(names.get(i), value);
                    }
                }
            }
        }
        return previous;
    }

    /** Sets the settings back to their values of before, in one statement. */
    private static void restore(Connection connection, Map<String, String> previous) throws SQLException {
        if (previous.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder("SELECT ");
        int i = 0;
        for (String ignored : previous.keySet()) {
            sql.append(i++ == 0 ? "" : ", ").append("set_config(?, ?, false)");
        }
        try (PreparedStatement st = connection.prepareStatement(sql.toString())) {
            int p = 1;
            for (Map.Entry<String, String> e : previous.entrySet()) {
                st.setString(p++, e.getKey());
                st.setString(p++, e.getValue());
            }
            st.execute();
        }
    }

    /** A borrowed connection: every call goes to the pool's connection; close() gives it back as it came. */
    private static final class Lent implements InvocationHandler {
        private final Connection raw;
        private final Map<String, String> previous;
        private final boolean autoCommit;
        private final boolean readOnly;
        private final boolean held;
        private boolean closed;

        Lent(Connection raw, Map<String, String> previous, boolean autoCommit, boolean readOnly, boolean held) {
            this.raw = raw;
            this.previous = previous;
            this.autoCommit = autoCommit;
            this.readOnly = readOnly;
            this.held = held;
        }

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "close":
                    giveBack();
                    return null;
                case "isClosed":
                    return closed || raw.isClosed();
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "ForgeFlow's lease of " + raw;
                default:
                    try {
                        return method.invoke(raw, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
            }
        }

        private synchronized void giveBack() throws SQLException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (!raw.isClosed()) {
                    if (!raw.getAutoCommit()) {
                        raw.rollback(); // nothing of ForgeFlow's is left open; the pool gets no transaction
                        raw.setAutoCommit(true);
                    }
                    if (held) {
                        try (Statement st = raw.createStatement()) {
                            st.execute("UNLISTEN *");
                            st.execute("SELECT pg_advisory_unlock_all()");
                        }
                    }
                    restore(raw, previous);
                    if (readOnly) {
                        raw.setReadOnly(true);
                    }
                    if (!autoCommit) {
                        raw.setAutoCommit(false);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("could not set a connection of the application's pool back as it was ({}); closing it", e.toString());
            } finally {
                raw.close();
            }
        }
    }

    /** The pool's connections, scoped while borrowed. */
    private final class ScopedDataSource implements DataSource {
        private final Map<String, String> settings = settings("forgeflow", null);

        @Override
        public Connection getConnection() throws SQLException {
            return borrow(settings, false);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException("ForgeFlow borrows the application's pool's connections as the "
                    + "pool opens them");
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return pool.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            pool.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            pool.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return pool.getLoginTimeout();
        }

        @Override
        public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return pool.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            if (type.isInstance(this)) {
                return type.cast(this);
            }
            throw new SQLException("ForgeFlow's view of the application's pool wraps nothing it hands out");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return type.isInstance(this);
        }
    }
}
