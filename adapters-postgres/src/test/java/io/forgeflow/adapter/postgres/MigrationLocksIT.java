package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.PsqlSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A migration that changes a hot table while an application's transaction holds it open (the fault "an application's
 * open transaction"): the migration's statement waits for that transaction, and a plain wait for the lock queues every
 * other session's access to the table behind it, so the whole cluster would stall until the application commits.
 * {@link PostgresMigrations} waits {@value PostgresMigrations#LOCK_TRY} at a time and tries the changeset again: while
 * the application holds the table, nodes still read and write it, and the migration completes once the application
 * commits. A {@code psql} session plays the application: it enqueues a job in its transaction and keeps it open.
 */
class MigrationLocksIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String APPLICATION = "forgeflow-test-migration-locks";

    final List<PsqlSession> sessions = new ArrayList<>();

    @AfterEach
    void endSessions() throws InterruptedException {
        for (PsqlSession session : sessions) {
            session.close();
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"0030-job-rules-in-one-check, jobs", "0032-run-rules-in-one-check, runs",
            "0029-keyed-jobs-only, jobs"})
    void aMigrationWaitingForAnApplicationsTransactionDoesNotStallTheTablesOtherUsers(String changeSet, String table)
            throws Exception {
        PGSimpleDataSource db = (PGSimpleDataSource) pg.createEmptyDatabase();
        PostgresMigrations.migrate(db);
        db.setCurrentSchema("forgeflow");
        new PostgresExecutorCatalog(org.jdbi.v3.core.Jdbi.create(db)).record(List.of("noop"), "node-1");
        unapply(db, changeSet);

        PsqlSession application = holdOpen(db, "SELECT * FROM forgeflow.enqueue('order-42', 'noop')");
        CompletableFuture<Void> migration = CompletableFuture.runAsync(() -> PostgresMigrations.migrate(db));
        awaitWaitingForALock(db);

        try (Connection node = db.getConnection(); Statement st = node.createStatement()) {
            st.execute("SET search_path = forgeflow");
            st.execute("SET statement_timeout = '5s'");
            st.executeQuery("SELECT count(*) FROM " + table).close();
            st.executeQuery("SELECT * FROM enqueue('while-migrating', 'noop')").close();
        }
        assertThat(migration).as("the migration waits for the application's transaction").isNotDone();

        application.commit();
        migration.get(60, TimeUnit.SECONDS);
        assertThat(PostgresMigrations.isMigrated(db)).isTrue();
        assertThat(count(db, "SELECT count(*) FROM forgeflow.jobs WHERE name IN ('order-42', 'while-migrating')"))
                .isEqualTo(2);
    }

    @org.junit.jupiter.api.Test
    void aMigrationThatCannotGetItsLockInTimeFailsNamingTheHolderAndChangesNothing() throws Exception {
        PGSimpleDataSource db = (PGSimpleDataSource) pg.createEmptyDatabase();
        PostgresMigrations.migrate(db);
        db.setCurrentSchema("forgeflow");
        new PostgresExecutorCatalog(org.jdbi.v3.core.Jdbi.create(db)).record(List.of("noop"), "node-1");
        unapply(db, "0032-run-rules-in-one-check");
        holdOpen(db, "SELECT * FROM forgeflow.enqueue('order-42', 'noop')");

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> PostgresMigrations.migrate(db, "forgeflow", java.time.Duration.ofSeconds(2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stayed locked for 2 s")
                .hasMessageContaining(APPLICATION);
        assertThat(PostgresMigrations.pendingChangeSets(db)).containsExactly("0032-run-rules-in-one-check");
        assertThat(checks(db, "runs")).hasSize(10).doesNotContain("runs_rules");
    }

    /** The database as the release before {@code changeSet}: its rollback run and its history row gone. */
    private static void unapply(PGSimpleDataSource db, String changeSet) throws IOException, SQLException {
        String rollback;
        try (InputStream in = MigrationLocksIT.class.getResourceAsStream("/db/changelog/" + changeSet + ".sql")) {
            rollback = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> l.startsWith("--rollback ")).findFirst().orElseThrow()
                    .substring("--rollback ".length());
        }
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("SET search_path = forgeflow");
            st.execute(rollback);
            assertThat(st.executeUpdate("DELETE FROM databasechangelog WHERE id = '" + changeSet + "'"))
                    .isEqualTo(1);
        }
    }

    /** A psql session, as an application: runs {@code statement} in a transaction and keeps it open. */
    private PsqlSession holdOpen(PGSimpleDataSource db, String statement) throws IOException, InterruptedException {
        PsqlSession session = PsqlSession.holdOpen(db.getURL(), db.getUser(), db.getPassword(), APPLICATION, statement);
        sessions.add(session);
        return session;
    }

    /** Until some session of this database (the migration) has waited for a relation's lock. */
    private static void awaitWaitingForALock(PGSimpleDataSource db) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count(db, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE NOT l.granted AND l.locktype = 'relation' AND a.datname = current_database()") == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the migration never waited for the application's lock");
            }
            Thread.sleep(20);
        }
    }

    private static List<String> checks(PGSimpleDataSource db, String table) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT conname FROM pg_constraint WHERE conrelid = 'forgeflow." + table
                     + "'::regclass AND contype = 'c'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static long count(PGSimpleDataSource db, String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
