package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresHealthIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @Test
    void aReachableMigratedDatabaseHasNoProblem() {
        assertThat(new PostgresHealth(pg.dataSource()).problem()).isEmpty();
    }

    @Test
    void anUnmigratedDatabaseIsNotReadyUntilItIsMigrated() {
        DataSource empty = pg.createEmptyDatabase();
        PostgresHealth health = new PostgresHealth(empty);

        assertThat(health.problem()).hasValueSatisfying(problem ->
                assertThat(problem).contains("not migrated", "db migrate"));

        PostgresMigrations.migrate(empty);

        assertThat(health.problem()).isEmpty();
    }

    @Test
    void anUnreachableDatabaseIsNotReady() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setURL("jdbc:postgresql://127.0.0.1:1/nowhere");
        nowhere.setConnectTimeout(2);

        assertThat(new PostgresHealth(nowhere).problem()).hasValueSatisfying(problem ->
                assertThat(problem).startsWith("database unreachable"));
    }
}
