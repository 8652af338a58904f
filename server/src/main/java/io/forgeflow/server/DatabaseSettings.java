package io.forgeflow.server;

import io.dropwizard.db.DataSourceFactory;
import io.forgeflow.adapter.postgres.DedicatedConnections;
import io.forgeflow.adapter.postgres.PostgresSchema;
import io.forgeflow.adapter.postgres.PostgresUrls;
import io.forgeflow.adapter.postgres.SessionLimits;

import java.sql.Connection;
import java.util.function.Supplier;

/** Turns {@code FORGEFLOW_DATABASE_URL} into pool settings and dedicated connections. */
final class DatabaseSettings {
    private DatabaseSettings() {
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
    static Supplier<Connection> leaderSession(DataSourceFactory dsf, ForgeFlowSettings s) {
        return DedicatedConnections.to(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), "scheduler leadership",
                schemaOf(dsf), limitsOf(s).withIdleSession(s.leaderSessionTimeout.toJavaDuration()));
    }

    /** The schema the pool's sessions use ({@link #useSchema}), the default when none was set. */
    static String schemaOf(DataSourceFactory dsf) {
        return dsf.getProperties().getOrDefault(PostgresSchema.CONNECTION_PROPERTY, PostgresSchema.DEFAULT);
    }

    /** The URL and user, never the password. */
    static String describe(DataSourceFactory dsf) {
        return PostgresUrls.redact(dsf.getUrl()) + " as " + dsf.getUser(); // a JDBC URL may carry ?password=
    }

    /**
     * Connections outside the pool, for the leader's advisory lock and for LISTEN: both are session state that
     * must live on one connection of their own.
     */
    static Supplier<Connection> dedicated(DataSourceFactory dsf, String purpose) {
        return DedicatedConnections.to(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), purpose, schemaOf(dsf));
    }
}
