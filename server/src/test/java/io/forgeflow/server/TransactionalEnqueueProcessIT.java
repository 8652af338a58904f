package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Enqueueing from an application's transaction, with a real node process (all roles) running what commits: the
 * application uses plain JDBC on its own connections (default search_path) and a table in a schema of its own.
 */
class TransactionalEnqueueProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Map<String, String> FAST = Map.of(
            "FORGEFLOW_LEASE_DURATION", "10s",
            "FORGEFLOW_HEARTBEAT_INTERVAL", "2s",
            "FORGEFLOW_POLL_INTERVAL", "500ms",
            "FORGEFLOW_SCHEDULER_TICK", "500ms",
            "FORGEFLOW_CONCURRENCY", "32");
    static NodeProcess node;

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void startNodeAndTheApplicationsSchema() throws Exception {
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        node = NodeProcess.start("tx-node", "api,scheduler,worker", url, FAST);
        try (Connection app = appConnection(); Statement st = app.createStatement()) {
            st.execute("CREATE SCHEMA shop");
            st.execute("CREATE TABLE shop.orders (id bigint PRIMARY KEY, receipt_job text)");
            app.commit();
        }
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
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

    static void await(String what, Duration max, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen within " + max + "\nnode log tail:\n"
                        + ClusterProcessIT.tail(node.logText()));
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling a condition with a deadline
        }
    }

    @Test
    void aRolledBackOrderLeavesNoJobNoRunAndNoWakeUpACommittedOneRunsOnTheNode() throws Exception {
        try (Connection listener = pg.connectionSupplier().get(); Statement listen = listener.createStatement();
             Connection app = appConnection();
             PreparedStatement order = app.prepareStatement("INSERT INTO shop.orders (id, receipt_job) VALUES (?, ?)")) {
            listen.execute("LISTEN forgeflow_due");

            Enqueued lost = ForgeFlowJdbc.enqueue(app, JobRequest.shell("receipt-1", "echo receipt 1").build());
            order.setLong(1, 1);
            order.setString(2, lost.jobId());
            order.executeUpdate();
            app.rollback();
            PGNotification[] none = listener.unwrap(PGConnection.class).getNotifications(1000);
            assertThat(none == null ? List.of() : List.of(none)).isEmpty();
            assertThat(count("SELECT count(*) FROM jobs")).isZero();
            assertThat(count("SELECT count(*) FROM runs")).isZero();

            // the NOTIFY is sent while SQL enqueues are few: not while the node still watches after another test's
            await("no node watches for SQL enqueues", Duration.ofSeconds(30), () -> count("SELECT count(*) FROM "
                    + "forgeflow_sql_watch WHERE last_value > floor(extract(epoch FROM clock_timestamp()) * 1000)") == 0);
            Enqueued kept = ForgeFlowJdbc.enqueue(app, JobRequest.shell("receipt-2", "echo receipt 2").build());
            order.setLong(1, 2);
            order.setString(2, kept.jobId());
            order.executeUpdate();
            app.commit();
            PGNotification[] woken = listener.unwrap(PGConnection.class).getNotifications(10_000);
            assertThat(woken).isNotEmpty();

            await("the committed run succeeds", Duration.ofSeconds(60), () -> count("SELECT count(*) FROM runs WHERE id = '"
                    + kept.runId() + "' AND status = 'succeeded'") == 1);
            JsonNode job = json.readTree(get("/api/jobs/" + kept.jobId()));
            assertThat(job.get("submitted_via").asText()).isEqualTo("sql");
            assertThat(job.get("name").asText()).isEqualTo("receipt-2");
            JsonNode run = json.readTree(get("/api/runs/" + kept.runId()));
            assertThat(run.get("output").asText()).contains("receipt 2");
            assertThat(count("SELECT count(*) FROM run_attempts WHERE run_id = '" + kept.runId() + "'")).isEqualTo(1);
        }
    }

    @Test
    void aThousandConcurrentTransactionsOfWhichSomeRollBackRunExactlyTheCommittedOnesOnce() throws Exception {
        int transactions = 1_000;
        Set<String> committed = ConcurrentHashMap.newKeySet();
        Set<String> rolledBack = ConcurrentHashMap.newKeySet();
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    SplittableRandom random = new SplittableRandom(thread);
                    try (Connection app = appConnection();
                         PreparedStatement order = app.prepareStatement("INSERT INTO shop.orders (id, receipt_job) "
                                 + "VALUES (?, ?)")) {
                        for (int i = thread; i < transactions; i += 16) {
                            Enqueued e = ForgeFlowJdbc.enqueue(app, JobRequest.builder("order-" + i, "noop").build());
                            order.setLong(1, 1_000_000L + i);
                            order.setString(2, e.jobId());
                            order.executeUpdate();
                            if (random.nextBoolean()) {
                                app.commit();
                                committed.add(e.runId());
                            } else {
                                app.rollback();
                                rolledBack.add(e.runId());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(300, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(committed.size() + rolledBack.size()).isEqualTo(transactions);
        assertThat(committed).isNotEmpty();
        assertThat(rolledBack).isNotEmpty();

        await("every committed run succeeds", Duration.ofSeconds(180),
                () -> count("SELECT count(*) FROM runs WHERE status = 'succeeded'") == committed.size());
        List<String> succeededIds = pg.jdbi().withHandle(h -> h.createQuery("SELECT id::text FROM runs "
                + "WHERE status = 'succeeded'").mapTo(String.class).list());
        Set<String> succeeded = new TreeSet<>(succeededIds);
        assertThat(succeeded).isEqualTo(new TreeSet<>(committed));
        assertThat(count("SELECT count(*) FROM runs")).isEqualTo(committed.size());
        assertThat(count("SELECT count(*) FROM run_attempts")).as("each once").isEqualTo(committed.size());
        assertThat(count("SELECT count(*) FROM shop.orders WHERE id >= 1000000")).isEqualTo(committed.size());
        assertThat(count("SELECT count(*) FROM shop.orders o JOIN jobs j ON j.id::text = o.receipt_job "
                + "WHERE o.id >= 1000000")).isEqualTo(committed.size());
        // issue 40: a burst like this one is enqueued without NOTIFYs while the node watches (and loses nothing)
        assertThat(new Scrape(get("/metrics")).value("forgeflow_sql_watches_total"))
                .as("watches for SQL enqueues the node started").isPositive();
    }

    @Test
    void theFunctionStoresExactlyWhatARestSubmissionStores() throws Exception {
        String fields = "\"executor\": \"http\", \"payload\": {\"url\": \"https://example.com/hook\", \"method\": \"PUT\", "
                + "\"headers\": {\"X-A\": \"b\"}, \"expected_status\": [200, 204]}, \"run_at\": \"2040-01-02T03:04:05Z\", "
                + "\"priority\": 3, \"max_attempts\": 4, \"timeout_seconds\": 50, \"queue\": \"mail\", "
                + "\"concurrency_key\": \"acct-1\", \"max_concurrent\": 2";
        HttpResponse<String> rest = http.send(HttpRequest.newBuilder(URI.create(node.url("/api/jobs")))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"twin\", \"idempotency_key\": \"via-rest\", "
                        + fields + "}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(rest.statusCode()).as(rest.body()).isEqualTo(201);
        String restJob = json.readTree(rest.body()).get("id").asText();
        Enqueued sql;
        try (Connection app = appConnection()) {
            sql = ForgeFlowJdbc.enqueue(app, JobRequest.builder("twin", "http")
                    .payloadJson("{\"url\": \"https://example.com/hook\", \"method\": \"PUT\", \"headers\": {\"X-A\": \"b\"}, "
                            + "\"expected_status\": [200, 204]}")
                    .runAt(java.time.Instant.parse("2040-01-02T03:04:05Z")).priority(3).maxAttempts(4)
                    .timeoutSeconds(50).queue("mail").idempotencyKey("via-sql").concurrency("acct-1", 2).build());
            app.commit();
        }
        String jobColumns = "SELECT to_jsonb(j) - 'id' - 'created_at' - 'updated_at' - 'submitted_via' - 'idempotency_key' "
                + "FROM jobs j WHERE id = CAST(:id AS uuid)";
        String runColumns = "SELECT to_jsonb(r) - 'id' - 'job_id' - 'created_at' FROM runs r WHERE job_id = CAST(:id AS uuid)";
        assertThat(row(jobColumns, sql.jobId())).isEqualTo(row(jobColumns, restJob));
        assertThat(rows(runColumns, sql.jobId())).isEqualTo(rows(runColumns, restJob)).hasSize(1);
        assertThat(row("SELECT submitted_via FROM jobs WHERE id = CAST(:id AS uuid)", restJob)).isEqualTo("rest");
        assertThat(row("SELECT submitted_via FROM jobs WHERE id = CAST(:id AS uuid)", sql.jobId())).isEqualTo("sql");
        // REST lists both alike
        JsonNode listed = json.readTree(get("/api/jobs?limit=10")).get("items");
        assertThat(listed).extracting(j -> j.get("submitted_via").asText()).containsExactlyInAnyOrder("rest", "sql");
    }

    static String row(String sql, String id) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).bind("id", id).mapTo(String.class).one());
    }

    static List<String> rows(String sql, String id) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).bind("id", id).mapTo(String.class).list());
    }

    String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(node.url(path))).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
