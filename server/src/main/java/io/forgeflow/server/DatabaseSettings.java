package io.forgeflow.server;

import io.dropwizard.db.DataSourceFactory;
import io.forgeflow.adapter.postgres.DedicatedConnections;
import io.forgeflow.adapter.postgres.PostgresSchema;
import io.forgeflow.adapter.postgres.PostgresUrls;
import io.forgeflow.adapter.postgres.SessionLimits;

import java.sql.Connection;
import java.util.function.Supplier;

/**
 * Turns {@code FORGEFLOW_DATABASE_URL} into pool settings, and {@code FORGEFLOW_DATABASE_SESSION_URL} (or the same
 * URL) into the dedicated connections that hold session state.
 */
final class DatabaseSettings {
    private DatabaseSettings() {
    }

    /**
     * Where the connections that hold session state go (LISTEN, the leader's advisory lock, the migrations' lock):
     * the session URL when set, the pool's database otherwise; {@code pooled}: the pool's URL is a transaction pooler.
     */
    record Sessions(String jdbcUrl, String user, String password, String schema, boolean pooled) {
        @Override
        public String toString() {
            return PostgresUrls.redact(jdbcUrl) + " as " + user;
        }
    }

    /** How a node reaches PostgreSQL, chosen at start from its settings. */
    enum Mode {
        /** The pool reaches PostgreSQL directly (or through a session pooler): every session feature on it. */
        DIRECT("direct", "notify", "advisory_lock"),
        /** The pool is a transaction pooler; LISTEN and the leader's lock on direct session connections. */
        SESSIONS("transaction", "notify", "advisory_lock"),
        /** The pool is a transaction pooler and there is no session URL: polling, the lease row, no migrations. */
        POLLING("transaction", "polling", "lease");

        final String pooling;
        final String wakeUps;
        final String leadership;

        Mode(String pooling, String wakeUps, String leadership) {
            this.pooling = pooling;
            this.wakeUps = wakeUps;
            this.leadership = leadership;
        }
    }

    /**
     * {@code FORGEFLOW_DATABASE_POOLING} ({@code direct} or {@code transaction}); when unset, {@code transaction} if a
     * session URL is set. Transaction pooling with a session URL: {@link Mode#SESSIONS}; without: {@link Mode#POLLING}.
     */
    static Mode mode(ForgeFlowSettings s) {
        boolean session = s.databaseSessionUrl != null && !s.databaseSessionUrl.isBlank();
        boolean transaction = "transaction".equals(s.databasePooling) || (session && !"direct".equals(s.databasePooling));
        if (!transaction) {
            return Mode.DIRECT;
        }
        return session ? Mode.SESSIONS : Mode.POLLING;
    }

    /** The session database of a node whose pool is {@code dsf} (its URL, user and password already applied). */
    static Sessions sessions(DataSourceFactory dsf, ForgeFlowSettings s) {
        if (s.databaseSessionUrl == null || s.databaseSessionUrl.isBlank()) {
            // without a session URL: nothing holds session state (POLLING), or the pool's database does (DIRECT)
            return new Sessions(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), s.databaseSchema,
                    mode(s) == Mode.POLLING);
        }
        PostgresUrls.Parsed parsed = PostgresUrls.parse(s.databaseSessionUrl);
        return new Sessions(parsed.jdbcUrl(), parsed.user() != null ? parsed.user() : dsf.getUser(),
                parsed.password() != null ? parsed.password() : dsf.getPassword(), s.databaseSchema, true);
    }

    /**
     * The pool's settings behind a transaction pooler (PgBouncer in transaction mode), which keeps no session for a
     * client: no startup parameters but the driver's own (no {@code options}, no {@code search_path}: they are the
     * database's or the role's, see {@link PoolerSessionCheck}) and no named server-side prepared statements.
     */
    static DataSourceFactory forTransactionPooler(DataSourceFactory dsf) {
        java.util.Map<String, String> properties = new java.util.LinkedHashMap<>(dsf.getProperties());
        properties.remove("options");
        properties.remove(PostgresSchema.CONNECTION_PROPERTY);
        properties.put("prepareThreshold", "0");
        dsf.setProperties(properties);
        return dsf;
    }

    /** Sets url, user and password of {@code dsf} from a {@code postgresql://} or {@code jdbc:postgresql://} URL. */
    static DataSourceFactory apply(DataSourceFactory dsf, String url) {
        PostgresUrls.Parsed parsed = PostgresUrls.parse(url);
        dsf.setUrl(parsed.jdbcUrl());
        if (parsed.user() != null) {
            dsf.setUser(parsed.user());
        }
        if (parsed.password() != null) {
            dsf.setPassword(parsed.password());
        }
        return dsf;
    }

    /** Starts every pooled session with {@code limits} (the driver's {@code options} startup parameter). */
    static DataSourceFactory limit(DataSourceFactory dsf, SessionLimits limits) {
        java.util.Map<String, String> properties = new java.util.LinkedHashMap<>(dsf.getProperties());
        properties.put("options", limits.options());
        dsf.setProperties(properties);
        return dsf;
    }

    /** pgjdbc's socketTimeout on the pool, in seconds: no call waits longer for a silent database. */
    static final String SOCKET_TIMEOUT_SECONDS = "60";
    /** pgjdbc's connectTimeout on the pool, in seconds. */
    static final String CONNECT_TIMEOUT_SECONDS = "10";

    /**
     * Network safety on the pool's connections unless the configuration's {@code database.properties} set them: a
     * socket timeout, so that a read from a database whose packets are dropped fails instead of blocking for the
     * kernel's retransmission time (many minutes), a connect timeout, and TCP keep-alive so idle connections to a
     * vanished host are found. Statement-level timeouts are the session limits ({@link #limit}).
     */
    static DataSourceFactory withNetworkTimeouts(DataSourceFactory dsf) {
        java.util.Map<String, String> properties = new java.util.LinkedHashMap<>(dsf.getProperties());
        properties.putIfAbsent("socketTimeout", SOCKET_TIMEOUT_SECONDS);
        properties.putIfAbsent("connectTimeout", CONNECT_TIMEOUT_SECONDS);
        properties.putIfAbsent("tcpKeepAlive", "true");
        dsf.setProperties(properties);
        return dsf;
    }

    /**
     * Makes {@code schema} the whole {@code search_path} of the pool's sessions (pgjdbc's {@code currentSchema}), so
     * ForgeFlow's unqualified SQL reaches its own tables and nothing else.
     */
    static DataSourceFactory useSchema(DataSourceFactory dsf, String schema) {
        java.util.Map<String, String> properties = new java.util.LinkedHashMap<>(dsf.getProperties());
        properties.put(PostgresSchema.CONNECTION_PROPERTY, PostgresSchema.require(schema));
        dsf.setProperties(properties);
        return dsf;
    }

    /** The session limits of this node's pool, from its settings. */
    static SessionLimits limitsOf(ForgeFlowSettings s) {
        return new SessionLimits(s.statementTimeout.toJavaDuration(), s.lockTimeout.toJavaDuration(),
                s.idleInTransactionTimeout.toJavaDuration(), java.time.Duration.ZERO);
    }

    /**
     * The leader's session: the pool's limits, and the server ends it after {@code leaderSessionTimeout} of silence
     * (a leader confirms its lock every scheduler tick), so a stopped or cut-off leader loses the lock.
     */
    static Supplier<Connection> leaderSession(Sessions sessions, ForgeFlowSettings s) {
        return DedicatedConnections.to(sessions.jdbcUrl(), sessions.user(), sessions.password(), "scheduler leadership",
                sessions.schema(), limitsOf(s).withIdleSession(s.leaderSessionTimeout.toJavaDuration()));
    }

    /** The URL and user, never the password. */
    static String describe(DataSourceFactory dsf) {
        return PostgresUrls.redact(dsf.getUrl()) + " as " + dsf.getUser(); // a JDBC URL may carry ?password=
    }

    /**
     * Connections outside the pool, for the leader's advisory lock and for LISTEN: both are session state that
     * must live on one connection of their own.
     */
    static Supplier<Connection> dedicated(Sessions sessions, String purpose) {
        return DedicatedConnections.to(sessions.jdbcUrl(), sessions.user(), sessions.password(), purpose,
                sessions.schema());
    }

    /**
     * A connection of its own that holds no session state (NOTIFY, the readiness probe), to the pool's database: with
     * a transaction pooler it goes through the pooler, with no startup parameters it would refuse.
     */
    static Supplier<Connection> stateless(DataSourceFactory dsf, Sessions sessions, String purpose,
                                          SessionLimits limits) {
        if (!sessions.pooled()) {
            return DedicatedConnections.to(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), purpose, sessions.schema(),
                    limits);
        }
        return DedicatedConnections.throughPooler(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), purpose);
    }
}
