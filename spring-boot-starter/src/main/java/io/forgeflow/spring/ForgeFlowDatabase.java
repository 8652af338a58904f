package io.forgeflow.spring;

import io.forgeflow.adapter.postgres.PostgresMigrations;
import org.springframework.beans.factory.InitializingBean;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Readies the database before any bean can enqueue: applies ForgeFlow's migrations when {@code forgeflow.migrations}
 * is true (idempotent; replicas starting together are serialised by an advisory lock), and records the {@code java}
 * executor, which {@code forgeflow.enqueue()} checks jobs against, so that a job enqueued before the worker has
 * started is accepted.
 */
public class ForgeFlowDatabase implements InitializingBean {
    private final DataSource dataSource;
    private final ForgeFlowProperties properties;

    public ForgeFlowDatabase(DataSource dataSource, ForgeFlowProperties properties) {
        this.dataSource = dataSource;
        this.properties = properties;
    }

    @Override
    public void afterPropertiesSet() {
        String schema = properties.getSchema();
        if (properties.isMigrations()) {
            PostgresMigrations.migrate(dataSource, schema);
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement record = c.prepareStatement("INSERT INTO " + schema + ".executors (name, last_seen_by) "
                     + "VALUES ('java', ?) ON CONFLICT (name) DO NOTHING")) {
            record.setString(1, "spring-boot-starter");
            record.executeUpdate();
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
                throw new IllegalStateException("ForgeFlow's schema '" + schema + "' is not in the application's "
                        + "database: set forgeflow.migrations=true (the default) or migrate it with a ForgeFlow node "
                        + "first", e);
            }
            throw new ForgeFlowException("ForgeFlow could not reach its schema '" + schema + "': " + e.getMessage(), e);
        }
    }
}
