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

    /** The URL and user, never the password. */
    static String describe(DataSourceFactory dsf) {
        return PostgresUrls.redact(dsf.getUrl()) + " as " + dsf.getUser(); // a JDBC URL may carry ?password=
    }

    /**
     * Connections outside the pool, for the leader's advisory lock and for LISTEN: both are session state that
     * must live on one connection of their own.
     */
    static Supplier<Connection> dedicated(DataSourceFactory dsf, String purpose) {
        return DedicatedConnections.to(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), purpose);
    }
}
