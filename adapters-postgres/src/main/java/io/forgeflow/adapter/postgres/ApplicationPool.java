package io.forgeflow.adapter.postgres;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
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

    /** The settings ForgeFlow changes on a borrowed session, in the order of {@link #SWAP} and {@link #RESTORE}. */
    private static final List<String> NAMES = List.of("search_path", "statement_timeout", "lock_timeout",
            "idle_in_transaction_session_timeout", "default_transaction_isolation", "default_transaction_read_only",
            "application_name", "idle_session_timeout", "synchronous_commit");

    /**
     * Reads the settings of {@link #NAMES}, then sets all but {@code synchronous_commit} (read only, to be set back: a
     * NOTIFY session changes it), in one statement: the read is a materialized CTE, evaluated first. A setting this
     * server does not have ({@code idle_session_timeout} before PostgreSQL 14) reads as null and is left alone.
     */
    private static final String SWAP = """
            WITH old AS MATERIALIZED (
                SELECT current_setting('search_path') AS p, current_setting('statement_timeout') AS st,
                       current_setting('lock_timeout') AS lt, current_setting('idle_in_transaction_session_timeout') AS it,
                       current_setting('default_transaction_isolation') AS iso,
                       current_setting('default_transaction_read_only') AS ro, current_setting('application_name') AS an,
                       current_setting('idle_session_timeout', true) AS idle, current_setting('synchronous_commit') AS sc)
            SELECT old.p, old.st, old.lt, old.it, old.iso, old.ro, old.an, old.idle, old.sc,
                   set_config('search_path', ?, false), set_config('statement_timeout', ?, false),
                   set_config('lock_timeout', ?, false), set_config('idle_in_transaction_session_timeout', ?, false),
                   set_config('default_transaction_isolation', 'read committed', false),
                   set_config('default_transaction_read_only', 'off', false), set_config('application_name', ?, false),
                   CASE WHEN old.idle IS NULL THEN NULL ELSE set_config('idle_session_timeout', ?, false) END
            FROM old""";

    /** Sets the settings of {@link #NAMES} back, in one statement ({@code idle_session_timeout} only where read). */
    private static final String RESTORE = """
            SELECT set_config('search_path', ?, false), set_config('statement_timeout', ?, false),
                   set_config('lock_timeout', ?, false), set_config('idle_in_transaction_session_timeout', ?, false),
                   set_config('default_transaction_isolation', ?, false),
                   set_config('default_transaction_read_only', ?, false), set_config('application_name', ?, false),
                   CASE WHEN CAST(? AS text) IS NULL THEN NULL ELSE set_config('idle_session_timeout', ?, false) END,
                   set_config('synchronous_commit', ?, false)""";

    /** What a borrowed session is given: its application name, and the server's limit on its silence (null: none). */
    private record Scope(String applicationName, Duration idleSession) {
    }

    private Scope settings(String applicationName, Duration idleSession) {
        return new Scope(applicationName, idleSession);
    }

    private Connection borrowOrThrow(Scope settings, boolean held) {
        try {
            return borrow(settings, held);
        } catch (SQLException e) {
            throw new IllegalStateException("could not borrow a connection from the application's pool: "
                    + e.getMessage(), e);
        }
    }

    private Connection borrow(Scope settings, boolean held) throws SQLException {
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

    /** Runs {@link #SWAP}; returns the values read, in the order of {@link #NAMES}. */
    private Map<String, String> swap(Connection connection, Scope scope) throws SQLException {
        Map<String, String> previous = new LinkedHashMap<>();
        try (PreparedStatement st = connection.prepareStatement(SWAP)) {
            st.setString(1, schema);
            st.setString(2, Long.toString(limits.statementTimeout().toMillis()));
            st.setString(3, Long.toString(limits.lockTimeout().toMillis()));
            st.setString(4, Long.toString(limits.idleInTransaction().toMillis()));
            st.setString(5, scope.applicationName());
            st.setString(6, scope.idleSession() == null ? "0" : Long.toString(scope.idleSession().toMillis()));
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                for (int i = 0; i < NAMES.size(); i++) {
                    previous.put(NAMES.get(i), rs.getString(i + 1));
                }
            }
        }
        return previous;
    }

    /** Runs {@link #RESTORE} with the values {@link #swap} read. */
    private static void restore(Connection connection, Map<String, String> previous) throws SQLException {
        try (PreparedStatement st = connection.prepareStatement(RESTORE)) {
            int p = 1;
            for (String name : NAMES) {
                if (name.equals("idle_session_timeout")) {
                    st.setString(p++, previous.get(name));
                }
                st.setString(p++, previous.get(name));
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
    private final class ScopedDataSource extends ForwardingDataSource {
        private final Scope settings = settings("forgeflow", null);

        ScopedDataSource() {
            super(ApplicationPool.this.pool);
        }

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
