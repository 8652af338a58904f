package io.forgeflow.client.jdbc;

import io.forgeflow.adapter.postgres.PostgresExecutorCatalog;
import io.forgeflow.adapter.postgres.PostgresMigrations;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The helper on an application's own connection (default search_path), in the application's transaction. */
class ForgeFlowJdbcIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @BeforeEach
    void theClusterKnowsItsExecutors() {
        new PostgresExecutorCatalog(pg.jdbi()).record(List.of("shell", "http", "noop"), "test-node");
    }

    static Connection appConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", pg.user());
        properties.setProperty("password", pg.password());
        Connection connection = DriverManager.getConnection(pg.jdbcUrl(), properties);
        connection.setAutoCommit(false);
        return connection;
    }

    static long count(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    @Test
    void theJobCommitsAndRollsBackWithTheApplicationsOwnRow() throws Exception {
        try (Connection app = appConnection(); Statement st = app.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS shop");
            st.execute("CREATE TABLE IF NOT EXISTS shop.orders (id int PRIMARY KEY)");
            app.commit();

            st.execute("INSERT INTO shop.orders VALUES (1)");
            ForgeFlowJdbc.enqueue(app, JobRequest.shell("receipt-1", "echo 1").build());
            app.rollback();
            assertThat(count("SELECT count(*) FROM jobs")).isZero();

            st.execute("INSERT INTO shop.orders VALUES (2)");
            Enqueued e = ForgeFlowJdbc.enqueue(app, JobRequest.shell("receipt-2", "echo 2").build());
            assertThat(count("SELECT count(*) FROM jobs")).as("not visible before the commit").isZero();
            app.commit();

            assertThat(e.created()).isTrue();
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending' AND id = '" + e.runId()
                    + "' AND job_id = '" + e.jobId() + "'")).isEqualTo(1);
            st.execute("DROP SCHEMA shop CASCADE");
            app.commit();
        }
    }

    @Test
    void everyFieldReachesTheJobAndItsRun() throws Exception {
        Instant at = Instant.parse("2031-05-06T07:08:09Z");
        try (Connection app = appConnection()) {
            ForgeFlowJdbc.enqueue(app, JobRequest.builder("full", "http")
                    .payload(Map.of("url", "https://example.com/h", "method", "PUT"))
                    .runAt(at).priority(1).maxAttempts(9).timeoutSeconds(42).queue("mail").idempotencyKey("k-9")
                    .concurrency("acct", 3).label("team", "mail").label("env", "prod").build());
            app.commit();
        }
        Map<String, Object> row = pg.jdbi().withHandle(h -> h.createQuery("SELECT j.payload ->> 'method' AS method, "
                + "j.run_at = CAST(:at AS timestamptz) AS at, r.scheduled_for = j.run_at AS sched, r.priority, "
                + "r.max_attempts, r.timeout_seconds, r.queue, j.idempotency_key, r.concurrency_key, r.max_concurrent, "
                + "j.submitted_via, j.labels ->> 'team' AS team, r.labels::text AS run_labels "
                + "FROM jobs j JOIN runs r ON r.job_id = j.id").bind("at", at.toString()).mapToMap().one());
        assertThat(row).containsEntry("method", "PUT").containsEntry("at", true).containsEntry("sched", true)
                .containsEntry("priority", 1).containsEntry("max_attempts", 9).containsEntry("timeout_seconds", 42)
                .containsEntry("queue", "mail").containsEntry("idempotency_key", "k-9")
                .containsEntry("concurrency_key", "acct").containsEntry("max_concurrent", 3)
                .containsEntry("submitted_via", "sql").containsEntry("team", "mail")
                .containsEntry("run_labels", "{\"env\": \"prod\", \"team\": \"mail\"}");
    }

    @Test
    void aRetryPolicyReachesTheJobAndItsRunAndIsCheckedByTheDatabase() throws Exception {
        try (Connection app = appConnection()) {
            ForgeFlowJdbc.enqueue(app, JobRequest.shell("hook", "exit 1").retry(1, 2).build());
            ForgeFlowJdbc.enqueue(app, JobRequest.shell("plain", "exit 1").build());
            app.commit();
            assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "echo").retry(3, 2).build()))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22023");
                        assertThat(e.getMessage()).contains("retry.base_seconds (3) must be at most retry.max_seconds (2)");
                    });
            app.rollback();
            assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "echo").retry(null, 0).build()))
                    .isInstanceOfSatisfying(SQLException.class, e ->
                            assertThat(e.getMessage()).contains("retry.max_seconds must be between 1 and 86400"));
            app.rollback();
        }
        assertThat(count("SELECT count(*) FROM jobs j JOIN runs r ON r.job_id = j.id WHERE j.name = 'hook' "
                + "AND j.retry_base_seconds = 1 AND j.retry_max_seconds = 2 AND r.retry_base_seconds = 1 "
                + "AND r.retry_max_seconds = 2")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM jobs j JOIN runs r ON r.job_id = j.id WHERE j.name = 'plain' "
                + "AND j.retry_base_seconds IS NULL AND r.retry_max_seconds IS NULL")).isEqualTo(1);
    }

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CALLER = "00-" + TRACE + "-00f067aa0ba902b7-01";

    @Test
    void aTraceparentMakesTheJobAndItsRunJoinTheCallersTrace() throws Exception {
        Enqueued traced;
        Enqueued plain;
        try (Connection app = appConnection()) {
            traced = ForgeFlowJdbc.enqueue(app, JobRequest.shell("traced", "true").trace(CALLER, "vendor=app")
                    .build());
            plain = ForgeFlowJdbc.enqueue(app, JobRequest.shell("plain", "true").build());
            ForgeFlowJdbc.enqueue(app, JobRequest.shell("both", "true").retry(1, 2).traceparent(CALLER).build());
            app.commit();
        }
        assertThat(count("SELECT count(*) FROM jobs WHERE name = 'both' AND retry_base_seconds = 1 AND traceparent = '"
                + CALLER + "' AND tracestate IS NULL")).isEqualTo(1);
        Map<String, Object> row = pg.jdbi().withHandle(h -> h.createQuery("SELECT j.traceparent AS job_parent, "
                + "j.tracestate AS job_state, r.traceparent AS run_parent, r.trace_origin AS run_origin, "
                + "r.tracestate AS run_state FROM jobs j JOIN runs r ON r.job_id = j.id WHERE r.id = CAST(:id AS uuid)")
                .bind("id", traced.runId()).mapToMap().one());
        assertThat(row.get("job_parent")).isEqualTo(CALLER);
        assertThat(row.get("job_state")).isEqualTo("vendor=app");
        assertThat(row.get("run_origin")).isEqualTo(CALLER);
        assertThat(row.get("run_state")).isEqualTo("vendor=app");
        assertThat((String) row.get("run_parent")).matches("00-" + TRACE + "-[0-9a-f]{16}-01")
                .isNotEqualTo(CALLER);
        assertThat(count("SELECT count(*) FROM jobs WHERE id = '" + plain.jobId() + "' AND traceparent IS NULL"))
                .isEqualTo(1);
    }

    @Test
    void aMalformedTraceparentIsRefusedNamingItAndTheTransactionCarriesOn() throws Exception {
        try (Connection app = appConnection()) {
            for (String bad : List.of("00-" + TRACE + "-00f067aa0ba902b7", "not-a-traceparent",
                    "00-" + "0".repeat(32) + "-00f067aa0ba902b7-01", "ff-" + TRACE + "-00f067aa0ba902b7-01",
                    "00-" + TRACE + "-" + "0".repeat(16) + "-01", "00-" + TRACE.replace('4', 'g') + "-00f067aa0ba902b7-01")) {
                assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "true").traceparent(bad)
                        .build()))
                        .as(bad).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("traceparent").hasMessageContaining("'" + bad + "'");
            }
            assertThatThrownBy(() -> JobRequest.shell("j", "true").trace(CALLER, "k=" + "v".repeat(600)).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tracestate");
            assertThatThrownBy(() -> JobRequest.shell("j", "true").trace(null, "k=v").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tracestate")
                    .hasMessageContaining("traceparent");
            // nothing reached the database: the application's transaction is not aborted
            Enqueued after = ForgeFlowJdbc.enqueue(app, JobRequest.shell("after", "true")
                    .traceparent(" 00-" + TRACE.toUpperCase(java.util.Locale.ROOT) + "-00F067AA0BA902B7-01 ").build());
            app.commit();
            assertThat(count("SELECT count(*) FROM jobs WHERE id = '" + after.jobId() + "' AND traceparent = '"
                    + CALLER + "'")).isEqualTo(1);
        }
    }

    @Test
    void theSameRequestWithTheSameKeyReturnsTheFirstIds() throws Exception {
        JobRequest request = JobRequest.builder("once", "noop").idempotencyKey("order-1").build();
        Enqueued first;
        Enqueued again;
        try (Connection app = appConnection()) {
            first = ForgeFlowJdbc.enqueue(app, request);
            app.commit();
            again = ForgeFlowJdbc.enqueue(app, request);
            app.commit();
        }
        assertThat(again).isEqualTo(new Enqueued(first.jobId(), first.runId(), false));
        assertThat(first.created()).isTrue();
    }

    @Test
    void debouncedEnqueuesJoinTheFirstRunWhichTakesTheLastPayload() throws Exception {
        Enqueued first;
        Enqueued second;
        Enqueued third;
        try (Connection app = appConnection()) {
            first = ForgeFlowJdbc.enqueue(app, JobRequest.http("sync-user-42", "https://example.com/sync?n=1")
                    .debounce("user-42", 60).build());
            app.commit();
            second = ForgeFlowJdbc.enqueue(app, JobRequest.http("sync-user-42", "https://example.com/sync?n=2")
                    .debounce("user-42", 60).build());
            app.commit();
            third = ForgeFlowJdbc.enqueue(app, JobRequest.http("sync-user-42", "https://example.com/sync?n=3")
                    .debounce("user-42", 60, 120, "trailing").build());
            app.commit();
        }
        assertThat(first.created()).isTrue();
        assertThat(first.debounced()).isFalse();
        assertThat(second).isEqualTo(new Enqueued(first.jobId(), first.runId(), false, true));
        assertThat(third).isEqualTo(new Enqueued(first.jobId(), first.runId(), false, true));
        assertThat(count("SELECT count(*) FROM runs")).isEqualTo(1);
        Map<String, Object> row = pg.jdbi().withHandle(h -> h.createQuery("SELECT r.payload ->> 'url' AS url, j.payload ->> 'url' AS job_url, "
                + "r.debounced, r.debounce_key, j.debounce ->> 'max_wait_seconds' AS max_wait, "
                + "j.debounce ->> 'edge' AS edge, j.submitted_via FROM runs r JOIN jobs j ON j.id = r.job_id")
                .mapToMap().one());
        assertThat(row).containsEntry("url", "https://example.com/sync?n=3")
                .containsEntry("job_url", "https://example.com/sync?n=3").containsEntry("debounced", 2).containsEntry("debounce_key", "user-42")
                .containsEntry("max_wait", "600").containsEntry("edge", "trailing").containsEntry("submitted_via", "sql");
    }

    @Test
    void aThrottleReachesTheJobAndItsRun() throws Exception {
        Enqueued e;
        try (Connection app = appConnection()) {
            e = ForgeFlowJdbc.enqueue(app, JobRequest.builder("call-partner", "noop").throttle("partner:7", 5, 2)
                    .sequence("order-1", null).build());
            app.commit();
        }
        assertThat(e.created()).isTrue();
        assertThat(e.debounced()).isFalse();
        Map<String, Object> row = pg.jdbi().withHandle(h -> h.createQuery("SELECT j.throttle::text AS throttle, "
                + "r.throttle_key, r.throttle_count, r.throttle_per_seconds, j.sequence_key FROM runs r "
                + "JOIN jobs j ON j.id = r.job_id WHERE r.id = CAST(:run AS uuid)").bind("run", e.runId()).mapToMap().one());
        assertThat(row).containsEntry("throttle", "{\"key\": \"partner:7\", \"count\": 5, \"per_seconds\": 2}")
                .containsEntry("throttle_key", "partner:7").containsEntry("throttle_count", 5)
                .containsEntry("throttle_per_seconds", 2).containsEntry("sequence_key", "order-1");
    }

    @Test
    void aBadDebounceOrThrottleIsTheDatabasesErrorNamingThePart() throws Exception {
        try (Connection app = appConnection()) {
            assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "echo")
                    .debounce("user-1", 0).build()))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22023");
                        assertThat(e.getMessage()).contains("debounce.period_seconds");
                    });
            app.rollback();
            assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "echo")
                    .throttle("partner:7", null, 2).build()))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22023");
                        assertThat(e.getMessage()).contains("throttle.count");
                    });
            app.rollback();
        }
        assertThat(count("SELECT count(*) FROM jobs")).isZero();
    }

    @Test
    void theSameKeyInTwoTenantsIsTwoJobsAndAgainInOneTenantIsTheFirst() throws Exception {
        Enqueued acme;
        Enqueued globex;
        Enqueued plain;
        Enqueued acmeAgain;
        try (Connection app = appConnection()) {
            acme = ForgeFlowJdbc.enqueue(app, JobRequest.builder("sync", "noop").idempotencyKey("order-1")
                    .tenant("acme").build());
            globex = ForgeFlowJdbc.enqueue(app, JobRequest.builder("sync", "noop").idempotencyKey("order-1")
                    .tenant("globex").build());
            plain = ForgeFlowJdbc.enqueue(app, JobRequest.builder("sync", "noop").idempotencyKey("order-1").build());
            app.commit();
            acmeAgain = ForgeFlowJdbc.enqueue(app, JobRequest.builder("sync", "noop").idempotencyKey("order-1")
                    .tenant("acme").build());
            app.commit();
        }
        assertThat(List.of(acme.created(), globex.created(), plain.created())).containsOnly(true);
        assertThat(List.of(acme.jobId(), globex.jobId(), plain.jobId())).doesNotHaveDuplicates();
        assertThat(acmeAgain).isEqualTo(new Enqueued(acme.jobId(), acme.runId(), false));
        List<String> tenants = pg.jdbi().withHandle(h -> h.createQuery("SELECT j.tenant || '/' || r.tenant "
                + "FROM jobs j JOIN runs r ON r.job_id = j.id ORDER BY j.tenant").mapTo(String.class).list());
        assertThat(tenants).containsExactly("acme/acme", "default/default", "globex/globex");
    }

    @Test
    void aRequestWithoutATenantDoesNotNameTheArgumentSoAnOlderSchemaStillTakesIt() throws Exception {
        try (Connection app = appConnection(); Statement st = app.createStatement()) {
            // enqueue() as it was before issue 42 in its shape: no tenant argument
            st.execute("CREATE SCHEMA legacy");
            st.execute("CREATE FUNCTION legacy.enqueue(name text, executor text, payload jsonb DEFAULT '{}', "
                    + "run_at timestamptz DEFAULT NULL, priority integer DEFAULT 5, max_attempts integer DEFAULT 3, "
                    + "timeout_seconds integer DEFAULT 300, queue text DEFAULT 'default', "
                    + "idempotency_key text DEFAULT NULL, concurrency_key text DEFAULT NULL, labels jsonb DEFAULT NULL, "
                    + "max_concurrent integer DEFAULT NULL) RETURNS TABLE (job_id text, run_id text, created boolean) "
                    + "LANGUAGE sql AS $$ SELECT 'j-' || name, 'r-' || name, true $$");
            app.commit();
            ForgeFlowJdbc legacy = new ForgeFlowJdbc("legacy");
            assertThat(legacy.submit(app, JobRequest.builder("old", "noop").build()))
                    .isEqualTo(new Enqueued("j-old", "r-old", true));
            assertThatThrownBy(() -> legacy.submit(app, JobRequest.builder("new", "noop").tenant("acme").build()))
                    .isInstanceOf(SQLException.class).hasMessageContaining("legacy.enqueue");
            app.rollback();
            st.execute("DROP SCHEMA legacy CASCADE");
            app.commit();
        }
    }

    @Test
    void aBadTenantIsTheDatabasesErrorNamingTheColumn() throws Exception {
        try (Connection app = appConnection()) {
            for (String bad : List.of("Acme", "", "a/b", "x".repeat(64))) {
                assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.builder("j", "noop").tenant(bad)
                        .build()))
                        .as(bad).isInstanceOfSatisfying(PSQLException.class, e -> {
                            assertThat(e.getSQLState()).isEqualTo("22023");
                            assertThat(e.getServerErrorMessage().getColumn()).isEqualTo("tenant");
                            assertThat(e.getMessage()).contains("is not a tenant name");
                        });
                app.rollback();
            }
        }
        assertThat(count("SELECT count(*) FROM jobs")).isZero();
    }

    @Test
    void badInputIsTheDatabasesErrorNamingTheField() throws Exception {
        try (Connection app = appConnection()) {
            assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "echo").priority(0).build()))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22023");
                        assertThat(e.getMessage()).contains("priority must be between 1 and 9");
                    });
            app.rollback();
            assertThatThrownBy(() -> ForgeFlowJdbc.enqueue(app, JobRequest.shell("j", "echo").label("team",
                    "x".repeat(201)).build()))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22023");
                        assertThat(e.getMessage()).contains("labels.team must be at most 200 characters, was 201");
                    });
            app.rollback();
        }
        assertThat(count("SELECT count(*) FROM jobs")).isZero();
    }

    @Test
    void aClusterInAnotherSchemaIsNamedOnTheHelper() throws Exception {
        PostgresMigrations.migrate(pg.dataSource(), "elsewhere");
        try (Connection app = appConnection(); Statement st = app.createStatement()) {
            st.execute("INSERT INTO elsewhere.executors (name, last_seen_by) VALUES ('noop', 'test-node')");
            Enqueued e = new ForgeFlowJdbc("elsewhere").submit(app, JobRequest.builder("there", "noop").build());
            app.commit();
            assertThat(count("SELECT count(*) FROM elsewhere.runs WHERE id = '" + e.runId() + "'")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM forgeflow.runs")).isZero();
            assertThatThrownBy(() -> new ForgeFlowJdbc("nowhere").submit(app, JobRequest.builder("j", "noop").build()))
                    .isInstanceOf(SQLException.class).hasMessageContaining("schema \"nowhere\" does not exist");
            app.rollback();
            st.execute("DROP SCHEMA elsewhere CASCADE");
            app.commit();
        }
    }
}
