package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import io.forgeflow.embedded.ForgeFlowWorker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node process (all roles) and an embedded worker in this JVM on one database: jobs for the worker's handlers
 * submitted over REST and enqueued in SQL run in-process; a job for a handler no live worker has is accepted and shown
 * as waiting, then runs once a worker with the handler starts.
 */
class EmbeddedHandlersIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static NodeProcess node;
    static HikariDataSource app;
    ForgeFlowWorker worker;
    ForgeFlowWorker late;

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void startNode() throws Exception {
        node = NodeProcess.start("api-node", "api,scheduler,worker", EmbeddedWorkers.nodeUrl(pg),
                TransactionalEnqueueProcessIT.FAST);
        app = EmbeddedWorkers.pool(pg, 20);
    }

    @AfterAll
    static void stopNode() throws Exception {
        app.close();
        if (node != null) {
            node.close();
        }
    }

    @AfterEach
    void stopWorkers() {
        if (worker != null) {
            worker.close();
        }
        if (late != null) {
            late.close();
        }
    }

    JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.url(path))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(node.url(path)))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
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

    String runStatus(String runId) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT status FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", runId).mapTo(String.class).one());
    }

    @Test
    void jobsSubmittedOverRestAndEnqueuedInSqlRunInTheApplicationsJvm() throws Exception {
        Map<String, String> ran = new ConcurrentHashMap<>();
        worker = EmbeddedWorkers.fast(app, "shop-1")
                .handler("send-receipt", ctx -> ran.put(ctx.runId(), ctx.payload().get("order_id").asText()))
                .start();

        HttpResponse<String> created = post("/api/jobs", "{\"name\": \"receipt-1\", \"executor\": \"java\", "
                + "\"payload\": {\"handler\": \"send-receipt\", \"args\": {\"order_id\": \"A-1\"}}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String restJob = json.readTree(created.body()).get("id").asText();
        Enqueued sql;
        try (Connection c = app.getConnection()) {
            c.setAutoCommit(false);
            sql = ForgeFlowJdbc.enqueue(c, JobRequest.handler("receipt-2", "send-receipt", Map.of("order_id", "A-2")).build());
            c.commit();
        }
        String restRun = get("/api/runs?job_id=" + restJob).get("items").get(0).get("id").asText();

        await("both runs succeed", Duration.ofSeconds(30),
                () -> "succeeded".equals(runStatus(restRun)) && "succeeded".equals(runStatus(sql.runId())));
        assertThat(ran).containsEntry(restRun, "A-1").containsEntry(sql.runId(), "A-2");
        JsonNode run = get("/api/runs/" + restRun);
        assertThat(run.get("attempts").get(0).get("worker_id").asText()).isEqualTo("shop-1");
        assertThat(run.get("waiting_for").isNull()).isTrue();
        // the node's own worker never claimed them: it has no handlers
        assertThat(node.logText()).doesNotContain("is not registered").doesNotContain("has no handlers");
    }

    @Test
    void aJobForAHandlerNoLiveWorkerHasIsAcceptedAndShownWaitingUntilAWorkerWithItComes() throws Exception {
        HttpResponse<String> created = post("/api/jobs", "{\"name\": \"report\", \"executor\": \"java\", "
                + "\"payload\": {\"handler\": \"nightly-report\"}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode job = json.readTree(created.body());
        assertThat(job.get("waiting_for").asText()).isEqualTo("handler nightly-report");
        String jobId = job.get("id").asText();
        JsonNode listed = get("/api/runs?job_id=" + jobId).get("items").get(0);
        assertThat(listed.get("waiting_for").asText()).isEqualTo("handler nightly-report");
        String runId = listed.get("id").asText();
        assertThat(get("/api/runs/" + runId).get("waiting_for").asText()).isEqualTo("handler nightly-report");
        assertThat(get("/api/jobs/" + jobId).get("waiting_for").asText()).isEqualTo("handler nightly-report");
        assertThat(get("/api/jobs").get("items").get(0).get("waiting_for").asText()).isEqualTo("handler nightly-report");
        assertThat(runStatus(runId)).isEqualTo("pending");

        late = EmbeddedWorkers.fast(app, "reports-1").handler("nightly-report", ctx -> ctx.output("done")).start();
        await("the waiting run succeeds", Duration.ofSeconds(30), () -> "succeeded".equals(runStatus(runId)));
        JsonNode done = get("/api/runs/" + runId);
        assertThat(done.get("waiting_for").isNull()).isTrue();
        assertThat(done.get("output").asText()).isEqualTo("done");
    }

    @Test
    void aHandlerPayloadWithoutAHandlerIsRefusedNamingTheField() throws Exception {
        HttpResponse<String> missing = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"java\", \"payload\": {\"args\": {}}}");
        assertThat(missing.statusCode()).isEqualTo(422);
        assertThat(json.readTree(missing.body()).get("field").asText()).isEqualTo("payload.handler");
        HttpResponse<String> badArgs = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"java\", "
                + "\"payload\": {\"handler\": \"h\", \"args\": [1]}}");
        assertThat(badArgs.statusCode()).isEqualTo(422);
        assertThat(json.readTree(badArgs.body()).get("field").asText()).isEqualTo("payload.args");
        try (Connection c = app.getConnection()) {
            c.setAutoCommit(false);
            SQLException refused = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> ForgeFlowJdbc.enqueue(c, JobRequest.builder("x", "java").payloadJson("{\"handler\": \"bad name\"}").build()));
            c.rollback();
            assertThat(refused.getSQLState()).isEqualTo("22023");
            assertThat(refused.getMessage()).contains("payload.handler must be 1 to 100 letters");
        }
    }
}
