package io.forgeflow.adapter.postgres;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Readiness of the database for {@code /readyz}: it answers a query within a few seconds and no changeset of the
 * changelog is pending. Both are checked at every call (two cheap queries on a pooled connection).
 */
public final class PostgresHealth {
    private static final int QUERY_TIMEOUT_SECONDS = 3;

    private final DataSource dataSource;
    private final String schema;

    /** @param dataSource the server's pool */
    public PostgresHealth(DataSource dataSource) {
        this(dataSource, PostgresSchema.DEFAULT);
    }

    /** @param schema the schema ForgeFlow's tables live in ({@link PostgresSchema}) */
    public PostgresHealth(DataSource dataSource, String schema) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.schema = PostgresSchema.require(schema);
    }

    /** Empty when the database answers and is migrated; otherwise what is wrong, in words for an operator. */
    public Optional<String> problem() {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
            try (ResultSet rs = statement.executeQuery("SELECT 1")) {
                rs.next();
            }
        } catch (SQLException | RuntimeException e) {
            return Optional.of("database unreachable: " + e.getMessage());
        }
        List<String> pending;
        try {
            pending = PostgresMigrations.pendingChangeSets(dataSource, schema);
        } catch (RuntimeException e) {
            return Optional.of("database migration status unknown: " + e.getMessage());
        }
        if (!pending.isEmpty()) {
            return Optional.of("database schema is not migrated (" + pending.size() + " changesets pending, first "
                    + pending.get(0) + "): restart the server, which migrates at start, or run `db migrate`");
        }
        return Optional.empty();
    }
}
