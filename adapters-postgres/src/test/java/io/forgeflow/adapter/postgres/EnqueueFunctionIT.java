package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.RunLifecycleGuard;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * {@code forgeflow.enqueue()} called as an application calls it: on its own connection, whose search_path does not
 * contain ForgeFlow's schema, inside its own transaction.
 */
class EnqueueFunctionIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @BeforeEach
    void theClusterKnowsTheBuiltInExecutors() {
        new PostgresExecutorCatalog(pg.jdbi()).record(List.of("shell", "http", "noop", "plugin"), "test-node");
    }

    /** A connection as an application opens one: default search_path ("$user", public), auto-commit off. */
    static Connection appConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", pg.user());
        properties.setProperty("password", pg.password());
        Connection connection = DriverManager.getConnection(pg.jdbcUrl(), properties);
        connection.setAutoCommit(false);
        return connection;
    }

    static long count(String table) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one());
    }

    static String runStatus(String runId) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT status FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", runId).mapTo(String.class).one());
    }

    static String enqueueInSequence(Connection app, String name, String key) throws SQLException {
        try (PreparedStatement st = app.prepareStatement("SELECT run_id FROM forgeflow.enqueue(name => ?, "
                + "executor => 'noop', sequence_key => ?)")) {
            st.setString(1, name);
            st.setString(2, key);
            try (java.sql.ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /**
     * Issue 44: the head of a sequence ends while an application's transaction holds the key (it is enqueueing the
     * next run): the end does not wait for it; the key is left for the leader's sweep, which lets the next run go once
     * that transaction committed. A REPEATABLE READ submitter is refused (it could not see the sequence's runs).
     */
    @Test
    void aSequenceWhoseHeadEndsWhileASubmitterHoldsItsKeyIsAdvancedByTheSweep() throws Exception {
        String head;
        String second;
        try (Connection app = appConnection()) {
            head = enqueueInSequence(app, "s1", "order-7");
            second = enqueueInSequence(app, "s2", "order-7");
            app.commit();
        }
        assertThat(runStatus(head)).isEqualTo("pending");
        assertThat(runStatus(second)).isEqualTo("waiting");
        try (Connection app = appConnection()) {
            String third = enqueueInSequence(app, "s3", "order-7"); // holds the key until commit
            RunLifecycleGuard.shortcut(pg.jdbi(), "UPDATE runs SET status = 'succeeded', finished_at = now() "
                    + "WHERE id = CAST(? AS uuid)", head); // returns at once
            assertThat(runStatus(second)).as("not decided while the key is held").isEqualTo("waiting");
            assertThat(count("sequence_rechecks")).isEqualTo(1);
            app.commit();
            int advanced = pg.jdbi().withHandle(h -> h.createQuery("SELECT forgeflow_recheck_children(100)")
                    .mapTo(Integer.class).one());
            assertThat(advanced).isEqualTo(1);
            assertThat(runStatus(second)).isEqualTo("pending");
            assertThat(runStatus(third)).isEqualTo("waiting");
            assertThat(count("sequence_rechecks")).isZero();
        }
        RunLifecycleGuard.shortcut(pg.jdbi(), "UPDATE runs SET status = 'cancelled', finished_at = now() "
                + "WHERE id = CAST(? AS uuid)", second);
        int pending = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM runs "
                + "WHERE sequence_key = 'order-7' AND status = 'pending'").mapTo(Integer.class).one());
        assertThat(pending).as("the third went on at once").isEqualTo(1);
        try (Connection app = appConnection()) {
            app.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertThatThrownBy(() -> enqueueInSequence(app, "s4", "order-7")).isInstanceOfSatisfying(PSQLException.class,
                    e -> {
                        assertThat(e.getSQLState()).isEqualTo("0A000");
                        assertThat(e.getServerErrorMessage().getColumn()).isEqualTo("sequence_key");
                    });
        }
    }

    /** Issue 39: the API's payload limit holds here too, as one number. */
    @Test
    void aPayloadOverTheApisLimitIsRefusedNamingIt() throws Exception {
        String function = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT prosrc FROM pg_proc WHERE proname = 'enqueue' AND pronamespace = CAST('forgeflow' AS regnamespace)").mapTo(String.class).one());
        assertThat(function).as("the SQL limit is JobDraft's")
                .contains("> " + io.forgeflow.domain.job.JobDraft.MAX_PAYLOAD_BYTES + " THEN");
        String big = "x".repeat(io.forgeflow.domain.job.JobDraft.MAX_PAYLOAD_BYTES);
        long jobs = count("jobs");
        try (Connection app = appConnection();
             PreparedStatement st = app.prepareStatement("SELECT * FROM forgeflow.enqueue(name => 'big', "
                     + "executor => 'shell', payload => jsonb_build_object('command', 'true', 'data', CAST(? AS text)))")) {
            st.setString(1, big);
            assertThatThrownBy(st::executeQuery).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("22023");
                assertThat(e.getServerErrorMessage().getColumn()).isEqualTo("payload");
                assertThat(e.getMessage()).contains("at most 1000000 bytes");
            });
        }
        assertThat(count("jobs")).isEqualTo(jobs);
    }

    /** Issue 39: the README's grants, and no more, are enough; the tables stay out of the application's reach. */
    @Nested
    class WithLeastPrivilege {
        final String role = "ff_app_" + Long.toHexString(System.nanoTime());

        @BeforeEach
        void anApplicationRoleWithTheReadmesGrantsOnly() {
            pg.jdbi().useHandle(h -> {
                h.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'app'");
                h.execute("GRANT USAGE ON SCHEMA forgeflow TO " + role);
                h.execute("GRANT EXECUTE ON FUNCTION forgeflow.enqueue TO " + role);
            });
        }

        @org.junit.jupiter.api.AfterEach
        void dropTheRole() {
            pg.jdbi().useHandle(h -> {
                h.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
                h.execute("DROP OWNED BY " + role);
                h.execute("DROP ROLE " + role);
            });
        }

        Connection asApplication() throws SQLException {
            Properties properties = new Properties();
            properties.setProperty("user", role);
            properties.setProperty("password", "app");
            Connection connection = DriverManager.getConnection(pg.jdbcUrl().replaceAll("([?&])(user|password)=[^&]*", "$1"),
                    properties);
            connection.setAutoCommit(false);
            return connection;
        }

        String enqueue(Connection app, String args) throws SQLException {
            try (Statement st = app.createStatement();
                 ResultSet rs = st.executeQuery("SELECT job_id, created FROM forgeflow.enqueue(" + args + ")")) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1) + "," + rs.getBoolean(2);
            }
        }

        @Test
        void everyDocumentedCallWorksAndTheTablesAreDenied() throws Exception {
            try (Connection app = asApplication()) {
                String parent = enqueue(app, "name => 'parent', executor => 'shell', payload => '{\"command\": \"true\"}', "
                        + "labels => '{\"team\": \"shop\"}', max_attempts => 5, retry_base_seconds => 2, "
                        + "retry_max_seconds => 60, idempotency_key => 'k-1', "
                        + "traceparent => '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'");
                String replay = enqueue(app, "name => 'parent', executor => 'shell', payload => '{\"command\": \"true\"}', "
                        + "labels => '{\"team\": \"shop\"}', max_attempts => 5, retry_base_seconds => 2, "
                        + "retry_max_seconds => 60, idempotency_key => 'k-1', "
                        + "traceparent => '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'");
                assertThat(replay).isEqualTo(parent.replace(",true", ",false"));
                String parentId = parent.split(",")[0];
                String child = enqueue(app, "name => 'child', executor => 'noop', depends_on => ARRAY['" + parentId
                        + "']::uuid[], on_parent_failure => 'run'");
                app.commit();
                assertThat(child).endsWith(",true");

                for (String forbidden : List.of("UPDATE forgeflow.runs SET priority = 1",
                        "UPDATE forgeflow.jobs SET payload = '{\"command\": \"id\"}'", "SELECT * FROM forgeflow.jobs",
                        "INSERT INTO forgeflow.runs (id) VALUES (gen_random_uuid())", "DELETE FROM forgeflow.runs")) {
                    try (Statement st = app.createStatement()) {
                        assertThatThrownBy(() -> st.execute(forbidden)).as(forbidden)
                                .isInstanceOfSatisfying(PSQLException.class,
                                        e -> assertThat(e.getSQLState()).isEqualTo("42501"));
                    }
                    app.rollback();
                }
            }
            long stored = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs WHERE name IN ('parent', 'child')")
                    .mapTo(Long.class).one());
            assertThat(stored).isEqualTo(2);
        }

        @Test
        void aRoleWithoutTheGrantCannotEnqueue() throws Exception {
            pg.jdbi().useHandle(h -> h.execute("REVOKE EXECUTE ON FUNCTION forgeflow.enqueue FROM " + role));
            try (Connection app = asApplication(); Statement st = app.createStatement()) {
                assertThatThrownBy(() -> st.execute("SELECT * FROM forgeflow.enqueue(name => 'n', executor => 'noop')"))
                        .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            }
        }
    }

    @Nested
    class WithParents {
        String enqueue(String args) throws Exception {
            try (Connection app = appConnection(); Statement st = app.createStatement();
                 ResultSet rs = st.executeQuery("SELECT job_id FROM forgeflow.enqueue(name => 'n', executor => 'shell', "
                         + "payload => '{\"command\": \"true\"}'" + args + ")")) {
                assertThat(rs.next()).isTrue();
                String id = rs.getString(1);
                app.commit();
                return id;
            }
        }

        String runStatus(String jobId) {
            return pg.jdbi().withHandle(h -> h.createQuery("SELECT status FROM runs WHERE job_id = CAST(:id AS uuid)")
                    .bind("id", jobId).mapTo(String.class).one());
        }

        @Test
        void aChildWaitsForItsParentAndRunsWhenItSucceeds() throws Exception {
            String parent = enqueue("");
            String child = enqueue(", depends_on => ARRAY['" + parent + "']::uuid[], on_parent_failure => 'wait'");
            assertThat(runStatus(child)).isEqualTo("waiting");
            String policy = pg.jdbi().withHandle(h -> h.createQuery("SELECT on_parent_failure FROM jobs WHERE id = "
                    + "CAST(:id AS uuid)").bind("id", child).mapTo(String.class).one());
            assertThat(policy).isEqualTo("wait");
            RunLifecycleGuard.shortcut(pg.jdbi(), "UPDATE runs SET status = 'succeeded', finished_at = now() "
                    + "WHERE job_id = CAST(? AS uuid)", parent);
            assertThat(runStatus(child)).isEqualTo("pending");
            String late = enqueue(", depends_on => ARRAY['" + parent + "']::uuid[]");
            assertThat(runStatus(late)).as("decided at once: its parent has succeeded").isEqualTo("pending");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                ", depends_on => ARRAY['0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b']::uuid[] | depends_on | no job",
                ", depends_on => ARRAY[]::uuid[] | depends_on | 1 to 100",
                ", on_parent_failure => 'run' | on_parent_failure | needs depends_on",
                ", depends_on => ARRAY['0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b', '0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b']::uuid[] | depends_on | repeats",
                ", depends_on => ARRAY['0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b']::uuid[], on_parent_failure => 'skip' | on_parent_failure | must be"})
        void badParentsAreRefusedNamingTheArgumentAndStoreNothing(String args, String column, String message) {
            long jobs = count("jobs");
            assertThatThrownBy(() -> enqueue(args)).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("22023");
                assertThat(e.getServerErrorMessage().getColumn()).isEqualTo(column);
                assertThat(e.getMessage()).contains(message);
            });
            assertThat(count("jobs")).isEqualTo(jobs);
        }
    }

    @Nested
    class WhatItStores {
        @Test
        void aOneOffJobAndItsPendingRunWithTheApiDefaultsMarkedAsSubmittedFromSql() throws Exception {
            String jobId;
            String runId;
            try (Connection app = appConnection(); Statement st = app.createStatement();
                 ResultSet rs = st.executeQuery("SELECT * FROM forgeflow.enqueue(name => 'receipt-42', "
                         + "executor => 'shell', payload => '{\"command\": \"echo hi\"}')")) {
                assertThat(rs.next()).isTrue();
                jobId = rs.getString("job_id");
                runId = rs.getString("run_id");
                assertThat(rs.getBoolean("created")).isTrue();
                app.commit();
            }
            assertThat(UUID.fromString(jobId).version()).isEqualTo(7);
            assertThat(UUID.fromString(runId).version()).isEqualTo(7);
            Map<String, Object> job = pg.jdbi().withHandle(h -> h.createQuery("SELECT name, executor, payload::text AS payload, "
                    + "cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds, catch_up, idempotency_key, "
                    + "status, next_run_at = created_at AS due_now, queue, concurrency_key, max_concurrent, overlap, "
                    + "submitted_via FROM jobs WHERE id = CAST(:id AS uuid)").bind("id", jobId).mapToMap().one());
            assertThat(job).containsEntry("name", "receipt-42").containsEntry("executor", "shell")
                    .containsEntry("payload", "{\"command\": \"echo hi\"}").containsEntry("cron_expr", null)
                    .containsEntry("run_at", null).containsEntry("timezone", "UTC").containsEntry("priority", 5)
                    .containsEntry("max_attempts", 3).containsEntry("timeout_seconds", 300)
                    .containsEntry("catch_up", "skip").containsEntry("idempotency_key", null)
                    .containsEntry("status", "active").containsEntry("due_now", true).containsEntry("queue", "default")
                    .containsEntry("concurrency_key", null).containsEntry("max_concurrent", null)
                    .containsEntry("overlap", "allow").containsEntry("submitted_via", "sql");
            Map<String, Object> run = pg.jdbi().withHandle(h -> h.createQuery("SELECT job_id::text AS job_id, status, "
                    + "priority, scheduled_for = created_at AS due_now, attempt, max_attempts, executor, payload::text AS payload, "
                    + "timeout_seconds, queue, concurrency_key, max_concurrent, worker_id, fired_for "
                    + "FROM runs WHERE id = CAST(:id AS uuid)").bind("id", runId).mapToMap().one());
            assertThat(run).containsEntry("job_id", jobId).containsEntry("status", "pending")
                    .containsEntry("priority", 5).containsEntry("due_now", true).containsEntry("attempt", 0)
                    .containsEntry("max_attempts", 3).containsEntry("executor", "shell")
                    .containsEntry("payload", "{\"command\": \"echo hi\"}").containsEntry("timeout_seconds", 300)
                    .containsEntry("queue", "default").containsEntry("concurrency_key", null)
                    .containsEntry("max_concurrent", null).containsEntry("worker_id", null).containsEntry("fired_for", null);
        }

        @Test
        void aDelayedJobWithEveryArgumentGiven() throws Exception {
            try (Connection app = appConnection(); Statement st = app.createStatement()) {
                st.execute("SELECT * FROM forgeflow.enqueue(name => 'later', executor => 'http', "
                        + "payload => '{\"url\": \"https://example.com/hook\", \"method\": \"PUT\"}', "
                        + "run_at => '2031-01-02T03:04:05Z', priority => 2, max_attempts => 7, timeout_seconds => 30, "
                        + "queue => 'billing', idempotency_key => 'k-1', concurrency_key => 'acct-9', max_concurrent => 2, "
                        + "labels => '{\"team\": \"billing\", \"env\": \"prod\"}')");
                app.commit();
            }
            Map<String, Object> row = pg.jdbi().withHandle(h -> h.createQuery("SELECT j.run_at = '2031-01-02T03:04:05Z' AS at, "
                    + "j.next_run_at = j.run_at AS next, r.scheduled_for = j.run_at AS sched, r.priority, r.max_attempts, "
                    + "r.timeout_seconds, r.queue, r.concurrency_key, r.max_concurrent, j.idempotency_key, "
                    + "j.labels::text AS job_labels, r.labels::text AS run_labels "
                    + "FROM jobs j JOIN runs r ON r.job_id = j.id").mapToMap().one());
            assertThat(row).containsEntry("at", true).containsEntry("next", true).containsEntry("sched", true)
                    .containsEntry("priority", 2).containsEntry("max_attempts", 7)
                    .containsEntry("timeout_seconds", 30).containsEntry("queue", "billing")
                    .containsEntry("concurrency_key", "acct-9").containsEntry("max_concurrent", 2)
                    .containsEntry("idempotency_key", "k-1")
                    .containsEntry("job_labels", "{\"env\": \"prod\", \"team\": \"billing\"}")
                    .containsEntry("run_labels", "{\"env\": \"prod\", \"team\": \"billing\"}");
        }

        @Test
        void maxConcurrentAloneGivesTheRunTheJobsOwnKey() throws Exception {
            try (Connection app = appConnection(); Statement st = app.createStatement()) {
                st.execute("SELECT * FROM forgeflow.enqueue(name => 'solo', executor => 'noop', max_concurrent => 1)");
                app.commit();
            }
            Boolean ownKey = pg.jdbi().withHandle(h -> h.createQuery("SELECT r.concurrency_key = 'job:' || j.id FROM jobs j "
                    + "JOIN runs r ON r.job_id = j.id").mapTo(Boolean.class).one());
            assertThat(ownKey).isTrue();
        }

        @Test
        void itsSearchPathIsPinnedToForgeFlowsSchema() {
            List<String> configs = pg.jdbi().withHandle(h -> h.createQuery("SELECT array_to_string(p.proconfig, ';') "
                    + "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    + "WHERE n.nspname = 'forgeflow' AND p.proname IN ('enqueue', 'forgeflow_check_payload')")
                    .mapTo(String.class).list());
            assertThat(configs).hasSize(2).containsOnly("search_path=pg_catalog, forgeflow, pg_temp");
        }
    }

    @Nested
    class Transactions {
        @Test
        void aRollbackStoresNothingAndWakesNobodyACommitWakesTheWorkers() throws Exception {
            try (Connection listener = pg.connectionSupplier().get(); Statement listen = listener.createStatement()) {
                listen.execute("LISTEN " + PostgresWorkSignal.CHANNEL);
                try (Connection app = appConnection(); Statement st = app.createStatement()) {
                    st.execute("CREATE SCHEMA IF NOT EXISTS shop");
                    st.execute("CREATE TABLE IF NOT EXISTS shop.orders (id int PRIMARY KEY)");
                    app.commit();
                    st.execute("INSERT INTO shop.orders VALUES (1)");
                    st.execute("SELECT * FROM forgeflow.enqueue(name => 'receipt-1', executor => 'noop')");
                    // not visible (and nobody told) before the commit
                    assertThat(count("jobs")).isZero();
                    assertThat(notifications(listener, Duration.ofMillis(300))).isEmpty();
                    app.rollback();
                    assertThat(notifications(listener, Duration.ofMillis(500))).isEmpty();
                    assertThat(count("jobs")).isZero();
                    assertThat(count("runs")).isZero();

                    st.execute("INSERT INTO shop.orders VALUES (2)");
                    st.execute("SELECT * FROM forgeflow.enqueue(name => 'receipt-2', executor => 'noop')");
                    app.commit();
                    assertThat(notifications(listener, Duration.ofSeconds(10))).isNotEmpty();
                    assertThat(count("runs")).isEqualTo(1);
                    st.execute("DROP SCHEMA shop CASCADE");
                    app.commit();
                }
            }
        }

        @Test
        void aDelayedRunWakesNobody() throws Exception {
            try (Connection listener = pg.connectionSupplier().get(); Statement listen = listener.createStatement()) {
                listen.execute("LISTEN " + PostgresWorkSignal.CHANNEL);
                try (Connection app = appConnection(); Statement st = app.createStatement()) {
                    st.execute("SELECT * FROM forgeflow.enqueue(name => 'later', executor => 'noop', "
                            + "run_at => now() + interval '1 hour')");
                    app.commit();
                }
                assertThat(notifications(listener, Duration.ofMillis(500))).isEmpty();
                assertThat(count("runs")).isEqualTo(1);
            }
        }

        private List<PGNotification> notifications(Connection listener, Duration wait) throws SQLException {
            PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications((int) wait.toMillis());
            return got == null ? List.of() : List.of(got);
        }
    }

    @Nested
    class Idempotency {
        @Test
        void theSameArgumentsAgainReturnTheExistingIdsAndOtherArgumentsAreRefused() throws Exception {
            String sql = "SELECT job_id, run_id, created FROM forgeflow.enqueue(name => 'once', executor => 'noop', "
                    + "payload => '{\"sleep_ms\": 1}', idempotency_key => 'order-7')";
            List<String> first = call(sql);
            List<String> again = call(sql);
            assertThat(first.get(2)).isEqualTo("t");
            assertThat(again).containsExactly(first.get(0), first.get(1), "f");

            assertThatThrownBy(() -> call("SELECT * FROM forgeflow.enqueue(name => 'once', executor => 'noop', "
                    + "payload => '{\"sleep_ms\": 2}', idempotency_key => 'order-7')"))
                    .isInstanceOfSatisfying(PSQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("23505");
                        assertThat(e.getServerErrorMessage().getColumn()).isEqualTo("idempotency_key");
                        assertThat(e.getMessage()).contains("idempotency_key 'order-7' was already used for a "
                                + "different job (" + first.get(0) + ")");
                    });
            assertThat(count("jobs")).isEqualTo(1);
            assertThat(count("runs")).isEqualTo(1);
        }

        @Test
        void anotherRetryPolicyIsAnotherRequest() throws Exception {
            String sql = "SELECT job_id, run_id, created FROM forgeflow.enqueue(name => 'once', executor => 'noop', "
                    + "idempotency_key => 'order-8', retry_base_seconds => 1, retry_max_seconds => 2)";
            List<String> first = call(sql);
            assertThat(call(sql)).containsExactly(first.get(0), first.get(1), "f");

            assertThatThrownBy(() -> call(sql.replace("retry_max_seconds => 2", "retry_max_seconds => 3")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            assertThatThrownBy(() -> call(sql.replace(", retry_base_seconds => 1, retry_max_seconds => 2", "")))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            assertThat(count("jobs WHERE retry_base_seconds = 1 AND retry_max_seconds = 2")).isEqualTo(1);
            assertThat(count("runs WHERE retry_base_seconds = 1 AND retry_max_seconds = 2")).isEqualTo(1);
        }

        @Test
        void twentyConcurrentTransactionsWithOneKeyMakeOneJob() {
            int n = 20;
            assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                CyclicBarrier together = new CyclicBarrier(n);
                ExecutorService pool = Executors.newFixedThreadPool(n);
                try {
                    List<Future<List<String>>> results = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        results.add(pool.submit(() -> {
                            try (Connection app = appConnection(); Statement st = app.createStatement()) {
                                st.execute("INSERT INTO forgeflow.queues (name) VALUES ('q-' || gen_random_uuid())");
                                together.await();
                                List<String> row = new ArrayList<>();
                                try (ResultSet rs = st.executeQuery("SELECT job_id, run_id, created FROM "
                                        + "forgeflow.enqueue(name => 'one', executor => 'noop', idempotency_key => 'k')")) {
                                    rs.next();
                                    row.add(rs.getString(1));
                                    row.add(rs.getString(2));
                                    row.add(rs.getString(3));
                                }
                                app.commit();
                                return row;
                            }
                        }));
                    }
                    Set<String> jobs = new HashSet<>();
                    int created = 0;
                    for (Future<List<String>> f : results) {
                        List<String> row = f.get(60, TimeUnit.SECONDS);
                        jobs.add(row.get(0) + "/" + row.get(1));
                        created += row.get(2).equals("t") ? 1 : 0;
                    }
                    assertThat(jobs).hasSize(1);
                    assertThat(created).isEqualTo(1);
                } finally {
                    pool.shutdownNow();
                }
            });
            assertThat(count("jobs")).isEqualTo(1);
            assertThat(count("runs")).isEqualTo(1);
            assertThat(count("queues")).isEqualTo(20);
        }

        private List<String> call(String sql) throws SQLException {
            try (Connection app = appConnection(); PreparedStatement st = app.prepareStatement(sql);
                 ResultSet rs = st.executeQuery()) {
                rs.next();
                List<String> row = List.of(rs.getString(1), rs.getString(2), rs.getString(3));
                app.commit();
                return row;
            }
        }
    }

    @Nested
    class Validation {
        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
                name => NULL, executor => 'noop'                           | 22023 | name            | name is required
                name => '   ', executor => 'noop'                          | 22023 | name            | must not be blank
                name => repeat('n', 201), executor => 'noop'               | 22023 | name            | name must be at most 200 characters, was 201
                name => 'j', executor => NULL                              | 22023 | executor        | executor is required
                name => 'j', executor => repeat('e', 101)                  | 22023 | executor        | executor must be at most 100 characters, was 101
                name => 'j', executor => 'nosuch'                          | 22023 | executor        | executor 'nosuch' is not known to this cluster: use one of http, noop, plugin, shell
                name => 'j', executor => 'noop', payload => '[1]'          | 22023 | payload         | payload must be a JSON object
                name => 'j', executor => 'plugin', payload => (SELECT concat('{"a":', repeat('[', 33), repeat(']', 33), '}')::jsonb) | 22023 | payload | payload nests deeper than 32 levels
                name => 'j', executor => 'noop', cron_expr => '* * * * *'  | 0A000 | cron_expr       | recurring jobs are submitted over the API (POST /v1/jobs)
                name => 'j', executor => 'noop', labels => '["a"]'         | 22023 | labels          | labels must be a JSON object of strings
                name => 'j', executor => 'noop', labels => '{"Team": "b"}' | 22023 | labels          | labels has a bad key 'Team': keys are 1 to 63 characters of a-z, 0-9
                name => 'j', executor => 'noop', labels => '{"team": 5}'   | 22023 | labels.team     | labels.team must be a string
                name => 'j', executor => 'noop', labels => (SELECT jsonb_build_object('team', repeat('v', 201))) | 22023 | labels.team | labels.team must be at most 200 characters, was 201
                name => 'j', executor => 'noop', labels => (SELECT jsonb_object_agg(concat('k', g), 'v') FROM generate_series(1, 21) g) | 22023 | labels | labels may hold at most 20 entries, had 21
                name => 'j', executor => 'noop', priority => 0             | 22023 | priority        | priority must be between 1 and 9 (1 is the highest), was 0
                name => 'j', executor => 'noop', priority => 10            | 22023 | priority        | priority must be between 1 and 9 (1 is the highest), was 10
                name => 'j', executor => 'noop', max_attempts => 0         | 22023 | max_attempts    | max_attempts must be between 1 and 100, was 0
                name => 'j', executor => 'noop', max_attempts => 101       | 22023 | max_attempts    | max_attempts must be between 1 and 100, was 101
                name => 'j', executor => 'noop', timeout_seconds => 0      | 22023 | timeout_seconds | timeout_seconds must be between 1 and 86400, was 0
                name => 'j', executor => 'noop', timeout_seconds => 86401  | 22023 | timeout_seconds | timeout_seconds must be between 1 and 86400, was 86401
                name => 'j', executor => 'noop', idempotency_key => ''     | 22023 | idempotency_key | idempotency_key must be 1 to 200 characters, was 0
                name => 'j', executor => 'noop', idempotency_key => repeat('k', 201) | 22023 | idempotency_key | idempotency_key must be 1 to 200 characters, was 201
                name => 'j', executor => 'noop', queue => 'no spaces'      | 22023 | queue           | queue must be 1 to 100 characters
                name => 'j', executor => 'noop', queue => repeat('q', 101) | 22023 | queue           | queue must be 1 to 100 characters
                name => 'j', executor => 'noop', concurrency_key => E'a\\nb', max_concurrent => 1 | 22023 | concurrency_key | must not contain control characters
                name => 'j', executor => 'noop', concurrency_key => repeat('c', 201), max_concurrent => 1 | 22023 | concurrency_key | concurrency_key must be 1 to 200 characters
                name => 'j', executor => 'noop', concurrency_key => 'job:1', max_concurrent => 1 | 22023 | concurrency_key | must not start with 'job:'
                name => 'j', executor => 'noop', concurrency_key => 'acct'  | 22023 | max_concurrent  | max_concurrent is required with concurrency_key
                name => 'j', executor => 'noop', max_concurrent => 10001    | 22023 | max_concurrent  | max_concurrent must be between 1 and 10000, was 10001
                name => 'j', executor => 'noop', retry_base_seconds => 0    | 22023 | retry.base_seconds | retry.base_seconds must be between 1 and 86400, was 0
                name => 'j', executor => 'noop', retry_max_seconds => 86401 | 22023 | retry.max_seconds | retry.max_seconds must be between 1 and 86400, was 86401
                name => 'j', executor => 'noop', retry_base_seconds => 3, retry_max_seconds => 2 | 22023 | retry.base_seconds | retry.base_seconds (3) must be at most retry.max_seconds (2)
                name => 'j', executor => 'shell'                            | 22023 | payload.command | payload.command is required by the shell executor
                name => 'j', executor => 'shell', payload => '{"command": 5}' | 22023 | payload.command | payload.command must be a string
                name => 'j', executor => 'shell', payload => '{"command": " "}' | 22023 | payload.command | payload.command must not be blank
                name => 'j', executor => 'shell', payload => (SELECT jsonb_build_object('command', repeat('x', 131072))) | 22023 | payload.command | at most 131071 bytes
                name => 'j', executor => 'shell', payload => '{"command": "x", "cmd": 1}' | 22023 | payload.cmd | payload.cmd is not a field of the shell executor (misspelt?); its fields are command
                name => 'j', executor => 'http'                             | 22023 | payload.url     | payload.url is required by the http executor
                name => 'j', executor => 'http', payload => '{"url": "ftp://x"}' | 22023 | payload.url | payload.url must be an absolute URL starting with http:// or https://
                name => 'j', executor => 'http', payload => '{"url": "https://x", "method": "BREW"}' | 22023 | payload.method | payload.method must be one of GET, POST, PUT, PATCH, DELETE, HEAD
                name => 'j', executor => 'http', payload => '{"url": "https://x", "headers": {"a": 1}}' | 22023 | payload.headers | payload.headers must map names to strings
                name => 'j', executor => 'http', payload => '{"url": "https://x", "headers": {"a b": "1"}}' | 22023 | payload.headers | invalid header name
                name => 'j', executor => 'http', payload => '{"url": "https://x", "headers": {"a": "\\u00e9"}}' | 22023 | payload.headers | characters not allowed in an HTTP header
                name => 'j', executor => 'http', payload => '{"url": "https://x", "method": "GET", "body": {}}' | 22023 | payload.body | payload.body cannot be sent with GET
                name => 'j', executor => 'http', payload => '{"url": "https://x", "expected_status": []}' | 22023 | payload.expected_status | must list 1 to 500 statuses
                name => 'j', executor => 'http', payload => '{"url": "https://x", "expected_status": [99]}' | 22023 | payload.expected_status | whole number from 100 to 599
                name => 'j', executor => 'http', payload => '{"url": "https://x", "header": {}}' | 22023 | payload.header | payload.header is not a field of the http executor
                name => 'j', executor => 'noop', payload => '{"sleep_ms": 1.5}' | 22023 | payload.sleep_ms | payload.sleep_ms must be a whole number from 0 to 60000
                """)
        void badArgumentsAreRefusedWithTheFieldAndHowToFixItAndNothingIsStored(String arguments, String state,
                                                                                String column, String message) throws Exception {
            try (Connection app = appConnection(); Statement st = app.createStatement()) {
                st.execute("CREATE TEMP TABLE mine (id int)");
                st.execute("INSERT INTO mine VALUES (1)");
                assertThatThrownBy(() -> st.execute("SELECT * FROM forgeflow.enqueue(" + arguments + ")"))
                        .isInstanceOfSatisfying(PSQLException.class, e -> {
                            assertThat(e.getSQLState()).isEqualTo(state);
                            assertThat(e.getServerErrorMessage().getColumn()).isEqualTo(column);
                            assertThat(e.getServerErrorMessage().getMessage()).startsWith(column).contains(message);
                        });
                app.rollback();
            }
            assertThat(count("jobs")).isZero();
            assertThat(count("runs")).isZero();
        }

        @Test
        void aPluginExecutorsPayloadIsLeftToItsJavaCode() throws Exception {
            try (Connection app = appConnection(); Statement st = app.createStatement()) {
                st.execute("SELECT * FROM forgeflow.enqueue(name => 'p', executor => 'plugin', payload => '{\"anything\": 1}')");
                app.commit();
            }
            assertThat(count("runs")).isEqualTo(1);
        }
    }
}
