package io.forgeflow.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.embedded.ForgeFlowWorker;

import java.time.Duration;

/** Embedded workers beside node processes: the application's pool, short timings. */
final class EmbeddedWorkers {
    private EmbeddedWorkers() {
    }

    /** The database URL a node process gets (user in the query). */
    static String nodeUrl(PostgresExtension pg) {
        return pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
    }

    static HikariDataSource pool(String url, String user, String password, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    static HikariDataSource pool(PostgresExtension pg, int size) {
        return pool(pg.jdbcUrl(), pg.user(), pg.password(), size);
    }

    /**
     * Lease 15 s, heartbeat 3 s: room for claims slowed down by a loaded machine (a claim whose reply comes later
     * than the lease less a heartbeat is not trusted and its runs are stopped unstarted, then claimed again).
     */
    static ForgeFlowWorker.Builder steady(javax.sql.DataSource pool, String workerId) {
        return fast(pool, workerId).lease(Duration.ofSeconds(15)).heartbeatInterval(Duration.ofSeconds(3));
    }

    /** Lease 4 s, heartbeat 1 s: a killed worker's runs come back within seconds. */
    static ForgeFlowWorker.Builder fast(javax.sql.DataSource pool, String workerId) {
        return ForgeFlowWorker.builder().dataSource(pool).workerId(workerId).concurrency(8)
                .lease(Duration.ofSeconds(4)).heartbeatInterval(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(200)).retryBase(Duration.ofMillis(50))
                .drainGrace(Duration.ofSeconds(5));
    }
}
