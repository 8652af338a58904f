package io.forgeflow.server;

import io.dropwizard.db.DataSourceFactory;
import io.forgeflow.adapter.postgres.DedicatedConnections;
import io.forgeflow.adapter.postgres.PostgresUrls;

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

    /** pgjdbc's socketTimeout on the pool, in seconds: no call waits longer for a silent database. */
    static final String SOCKET_TIMEOUT_SECONDS = "60";
    /** pgjdbc's connectTimeout on the pool, in seconds. */
    static final String CONNECT_TIMEOUT_SECONDS = "10";

    /**
     * Network safety on the pool's connections unless the configuration's {@code database.properties} set them: a
     * socket timeout, so that a read from a database whose packets are dropped fails instead of blocking for the
     * kernel's retransmission time (many minutes), a connect timeout, and TCP keep-alive so idle connections to a
     * vanished host are found. Statement-level timeouts are the database's own settings.
     */
    static DataSourceFactory withNetworkTimeouts(DataSourceFactory dsf) {
        java.util.Map<String, String> properties = new java.util.LinkedHashMap<>(dsf.getProperties());
        properties.putIfAbsent("socketTimeout", SOCKET_TIMEOUT_SECONDS);
        properties.putIfAbsent("connectTimeout", CONNECT_TIMEOUT_SECONDS);
        properties.putIfAbsent("tcpKeepAlive", "true");
        dsf.setProperties(properties);
        return dsf;
    }

    /** The URL and user, never the password. */
    static String describe(DataSourceFactory dsf) {
        return dsf.getUrl() + " as " + dsf.getUser();
    }

    /**
     * Connections outside the pool, for the leader's advisory lock and for LISTEN: both are session state that
     * must live on one connection of their own.
     */
    static Supplier<Connection> dedicated(DataSourceFactory dsf, String purpose) {
        return DedicatedConnections.to(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), purpose);
    }
}
