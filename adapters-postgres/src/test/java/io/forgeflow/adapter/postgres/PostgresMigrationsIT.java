package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresMigrationsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @Test
    void theFixtureDatabaseIsMigrated() {
        assertThat(PostgresMigrations.isMigrated(pg.dataSource())).isTrue();
        assertThat(PostgresMigrations.pendingChangeSets(pg.dataSource())).isEmpty();
    }

    @Test
    void migratingTwiceChangesNothing() {
        int applied = appliedChangeSets(pg.dataSource());

        PostgresMigrations.migrate(pg.dataSource());
        PostgresMigrations.migrate(pg.dataSource());

        assertThat(appliedChangeSets(pg.dataSource())).isEqualTo(applied).isPositive();
        assertThat(PostgresMigrations.isMigrated(pg.dataSource())).isTrue();
    }

    @Test
    void nodesMigratingAFreshDatabaseAtTheSameTimeAllSucceed() throws Exception {
        DataSource fresh = pg.createEmptyDatabase();
        int nodes = 4;
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(nodes);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(nodes);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                done.add(pool.submit(() -> {
                    together.await();
                    PostgresMigrations.migrate(fresh);
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(120, java.util.concurrent.TimeUnit.SECONDS); // throws if any node's migration failed
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(PostgresMigrations.isMigrated(fresh)).isTrue();
    }

    @Test
    void anEmptyDatabaseIsNotMigratedAndCheckingCreatesNothing() {
        DataSource empty = pg.createEmptyDatabase();

        assertThat(PostgresMigrations.isMigrated(empty)).isFalse();
        assertThat(PostgresMigrations.pendingChangeSets(empty)).contains("0001-jobs", "0001-runs");
        assertThat(tables(empty, "public")).isEmpty();
        assertThat(tables(empty, "forgeflow")).isEmpty();
    }

    @Test
    void migratingAnEmptyDatabaseMakesItMigrated() {
        DataSource empty = pg.createEmptyDatabase();

        PostgresMigrations.migrate(empty);

        assertThat(PostgresMigrations.isMigrated(empty)).isTrue();
        assertThat(tables(empty, "forgeflow")).contains("jobs", "runs", "run_attempts", "nodes", "executors",
                "databasechangelog");
        assertThat(tables(empty, "public")).isEmpty();
    }

    @Test
    void aNodesSessionLimitsDoNotCutTheMigrationShortHoweverSlowlyItGoes() {
        org.postgresql.ds.PGSimpleDataSource empty = (org.postgresql.ds.PGSimpleDataSource) pg.createEmptyDatabase();
        // a node's sessions end a transaction idle for longer than the limit (10 s by default); between its
        // statements, a migration on a loaded machine can idle that long. Here every pause is longer than the limit.
        empty.setOptions("-c idle_in_transaction_session_timeout=1 -c statement_timeout=30000 -c lock_timeout=5000");

        PostgresMigrations.migrate(empty);

        empty.setOptions(null);
        assertThat(PostgresMigrations.isMigrated(empty)).isTrue();
    }

    /**
     * Rolling upgrades: a node of an older release that starts (or restarts) after a newer release migrated the
     * database must not put its older functions back (its function files differ from what the newer release recorded,
     * and Liquibase re-runs a changed runOnChange file). It leaves the schema as it is and starts on it.
     */
    @Test
    void aNodeOfAnOlderReleaseLeavesTheNewerReleasesSchemaAlone() throws Exception {
        DataSource db = pg.createEmptyDatabase();
        PostgresMigrations.migrate(db);
        try (java.sql.Connection c = db.getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("SET search_path = forgeflow");
            // what a newer release leaves: a changeset this one does not know, and a function file of its own
            st.execute("INSERT INTO databasechangelog (id, author, filename, dateexecuted, orderexecuted, exectype,"
                    + " md5sum) SELECT '9999-newer', 'forgeflow', 'db/changelog/9999-newer.sql', now(),"
                    + " max(orderexecuted) + 1, 'EXECUTED', '9:0' FROM databasechangelog");
            st.execute("UPDATE databasechangelog SET md5sum = '9:1' WHERE id = 'function-forgeflow_worker_label'");
            st.execute("CREATE OR REPLACE FUNCTION forgeflow_worker_label(p_holder text) RETURNS text"
                    + " LANGUAGE sql IMMUTABLE AS $$ SELECT 'newer:' || p_holder $$");
        }

        PostgresMigrations.migrate(db);

        try (java.sql.Connection c = db.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT forgeflow.forgeflow_worker_label('node-1#abc')")) {
            rs.next();
            assertThat(rs.getString(1)).as("the newer release's function").isEqualTo("newer:node-1#abc");
        }
        assertThat(PostgresMigrations.isMigrated(db)).as("nothing of this release is missing").isTrue();
    }

    /**
     * A node that starts on a database its own release migrated does not run Liquibase (about a second of its start).
     * Shown by Liquibase's lock table, dropped here: Liquibase, whenever it runs, makes it again.
     */
    @Test
    void aNodeOfTheReleaseThatMigratedTheDatabaseDoesNotRunLiquibase() throws Exception {
        DataSource db = pg.createEmptyDatabase();
        PostgresMigrations.migrate(db);
        execute(db, "DROP TABLE databasechangeloglock");

        PostgresMigrations.migrate(db);

        assertThat(tables(db, "forgeflow")).as("Liquibase did not run").doesNotContain("databasechangeloglock");
        assertThat(SchemaRelease.migratedByThisRelease(db, "forgeflow")).isTrue();
    }

    /** A changeset rolled back since (`db rollback`): the changelog table changed, so Liquibase runs and applies it. */
    @Test
    void aChangesetRolledBackSinceIsAppliedAgain() throws Exception {
        DataSource db = pg.createEmptyDatabase();
        PostgresMigrations.migrate(db);
        execute(db, "DELETE FROM databasechangelog WHERE id = 'function-forgeflow_worker_label'",
                "CREATE OR REPLACE FUNCTION forgeflow_worker_label(p_holder text) RETURNS text"
                        + " LANGUAGE sql IMMUTABLE AS $$ SELECT 'rolled back:' || p_holder $$");
        assertThat(SchemaRelease.migratedByThisRelease(db, "forgeflow")).isFalse();

        PostgresMigrations.migrate(db);

        assertThat(PostgresMigrations.isMigrated(db)).isTrue();
        assertThat(workerLabel(db)).isEqualTo("node-1");
        assertThat(SchemaRelease.migratedByThisRelease(db, "forgeflow")).isTrue();
    }

    /**
     * Another release's Liquibase re-ran a function file of its own (an older release without the newer-release
     * check does): its checksum in the changelog table changed, so this release's Liquibase runs and puts its own
     * function back, as it always did.
     */
    @Test
    void aFunctionAnotherReleaseReRanIsPutBack() throws Exception {
        DataSource db = pg.createEmptyDatabase();
        PostgresMigrations.migrate(db);
        execute(db, "UPDATE databasechangelog SET md5sum = '9:1', exectype = 'RERAN' "
                        + "WHERE id = 'function-forgeflow_worker_label'",
                "CREATE OR REPLACE FUNCTION forgeflow_worker_label(p_holder text) RETURNS text"
                        + " LANGUAGE sql IMMUTABLE AS $$ SELECT 'other:' || p_holder $$");

        PostgresMigrations.migrate(db);

        assertThat(workerLabel(db)).isEqualTo("node-1");
    }

    private static String workerLabel(DataSource db) throws Exception {
        try (java.sql.Connection c = db.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT forgeflow.forgeflow_worker_label('node-1#0123456789abcdef0123456789abcdef')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(DataSource db, String... statements) throws Exception {
        try (java.sql.Connection c = db.getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("SET search_path = forgeflow");
            for (String statement : statements) {
                st.execute(statement);
            }
        }
    }

    private static int appliedChangeSets(DataSource dataSource) {
        return PostgresJdbi.create(dataSource).withHandle(h ->
                h.createQuery("SELECT count(*) FROM databasechangelog").mapTo(Integer.class).one());
    }

    private static List<String> tables(DataSource dataSource, String schema) {
        return PostgresJdbi.create(dataSource).withHandle(h -> h.createQuery(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = :schema")
                .bind("schema", schema).mapTo(String.class).list());
    }
}
