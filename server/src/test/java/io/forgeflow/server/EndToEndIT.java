package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The whole path of one job through a real node on a real PostgreSQL: submit, claim, execute, acknowledge, read. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EndToEndIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "e2e-worker"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void aShellJobSubmittedOverRestRunsToSucceededWithItsOutput() throws Exception {
        HttpResponse<String> created = post("/api/jobs",
                "{\"name\": \"hello\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo hello from forgeflow\"}}", null);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String jobId = json.readTree(created.body()).get("id").asText();

        JsonNode run = awaitRun(jobId, r -> "succeeded".equals(r.get("status").asText()));
        assertThat(run.get("output").asText()).contains("hello from forgeflow");
        assertThat(run.get("attempt").asInt()).isEqualTo(1);

        JsonNode detail = json.readTree(get("/api/runs/" + run.get("id").asText()).body());
        assertThat(detail.get("attempts")).hasSize(1);
        assertThat(detail.get("attempts").get(0).get("outcome").asText()).isEqualTo("succeeded");
        assertThat(detail.get("attempts").get(0).get("worker_id").asText()).isEqualTo("e2e-worker");

        JsonNode job = json.readTree(get("/api/jobs/" + jobId).body());
        assertThat(job.get("status").asText()).isEqualTo("completed");
        JsonNode stats = json.readTree(get("/api/stats").body());
        assertThat(stats.get("succeeded").asLong()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aCurlStyleFormEncodedBodyIsReadAsJson() throws Exception {
        HttpResponse<String> created = post("/api/jobs",
                "{\"name\": \"curl\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}",
                "application/x-www-form-urlencoded");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }

    @Test
    void aFailingJobIsRetriedThenDeadLetteredWithEveryAttemptRecorded() throws Exception {
        HttpResponse<String> created = post("/api/jobs", "{\"name\": \"fails\", \"executor\": \"shell\", "
                + "\"max_attempts\": 2, \"payload\": {\"command\": \"echo boom >&2; exit 3\"}}", null);
        String jobId = json.readTree(created.body()).get("id").asText();
        JsonNode run = awaitRun(jobId, r -> "dead".equals(r.get("status").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(2);
        assertThat(run.get("error").asText()).contains("exit code 3");
        assertThat(run.get("output").asText()).contains("boom");
        JsonNode detail = json.readTree(get("/api/runs/" + run.get("id").asText()).body());
        assertThat(detail.get("attempts")).hasSize(2);
        assertThat(detail.get("attempts").get(1).get("outcome").asText()).isEqualTo("failed");

        JsonNode dead = json.readTree(get("/api/runs?status=dead&job_id=" + jobId).body());
        assertThat(dead.get("items")).hasSize(1);
    }

    @Test
    void theWebhookExampleDeliversItsJsonBodyToALocalReceiver() throws Exception {
        com.sun.net.httpserver.HttpServer receiver = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        java.util.concurrent.BlockingQueue<String> received = new java.util.concurrent.LinkedBlockingQueue<>();
        receiver.createContext("/hook", exchange -> {
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst("Content-Type")
                    + " " + new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            byte[] ok = "thanks".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        receiver.start();
        try {
            String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
            HttpResponse<String> created = post("/api/jobs", "{\"name\": \"notify\", \"executor\": \"http\", "
                    + "\"max_attempts\": 5, \"payload\": {\"url\": \"" + url + "\", \"body\": {\"event\": \"ping\"}}}", null);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            String jobId = json.readTree(created.body()).get("id").asText();
            JsonNode run = awaitRun(jobId, r -> "succeeded".equals(r.get("status").asText()));
            assertThat(received.poll(5, java.util.concurrent.TimeUnit.SECONDS))
                    .isEqualTo("POST application/json {\"event\":\"ping\"}");
            assertThat(run.get("output").asText()).startsWith("HTTP 200").contains("thanks");
        } finally {
            receiver.stop(0);
        }
    }

    @Test
    void aPayloadThatTheExecutorRefusesIsA422NamingTheField() throws Exception {
        HttpResponse<String> bad = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"http\", "
                + "\"payload\": {\"url\": \"ftp://example.org/x\"}}", null);
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(json.readTree(bad.body()).get("field").asText()).isEqualTo("payload.url");
        HttpResponse<String> unknown = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"carrier-pigeon\"}", null);
        assertThat(unknown.statusCode()).isEqualTo(422);
        assertThat(json.readTree(unknown.body()).get("field").asText()).isEqualTo("executor");
        assertThat(json.readTree(unknown.body()).get("error").asText()).contains("shell").contains("http");
    }

    @Test
    void anExecutorPluggedInThroughServiceLoaderValidatesAndRuns() throws Exception {
        HttpResponse<String> bad = post("/api/jobs", "{\"name\": \"r\", \"executor\": \"reverse\", \"payload\": {}}", null);
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(json.readTree(bad.body()).get("field").asText()).isEqualTo("payload.text");
        HttpResponse<String> created = post("/api/jobs",
                "{\"name\": \"r\", \"executor\": \"reverse\", \"payload\": {\"text\": \"wolfegrof\"}}", null);
        String jobId = json.readTree(created.body()).get("id").asText();
        JsonNode run = awaitRun(jobId, r -> "succeeded".equals(r.get("status").asText()));
        assertThat(run.get("output").asText()).isEqualTo("forgeflow");
    }

    @Test
    void twentyConcurrentSubmissionsWithOneIdempotencyKeyCreateOneJob() throws Exception {
        String body = "{\"name\": \"billing-run\", \"executor\": \"shell\", \"idempotency_key\": \"billing-2026-11\", "
                + "\"run_at\": \"2099-01-01T00:00:00Z\", \"payload\": {\"command\": \"true\"}}";
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(20);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(20);
        java.util.List<java.util.concurrent.Future<HttpResponse<String>>> answers = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                answers.add(pool.submit(() -> {
                    together.await();
                    return post("/api/jobs", body, null);
                }));
            }
            java.util.Map<Integer, Integer> byStatus = new java.util.TreeMap<>();
            java.util.Set<String> ids = new java.util.HashSet<>();
            for (java.util.concurrent.Future<HttpResponse<String>> f : answers) {
                HttpResponse<String> r = f.get(60, java.util.concurrent.TimeUnit.SECONDS);
                byStatus.merge(r.statusCode(), 1, Integer::sum);
                ids.add(json.readTree(r.body()).get("id").asText());
            }
            assertThat(byStatus).isEqualTo(java.util.Map.of(200, 19, 201, 1));
            assertThat(ids).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
        HttpResponse<String> other = post("/api/jobs", body.replace("billing-run", "another-name"), null);
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(json.readTree(other.body()).get("field").asText()).isEqualTo("idempotency_key");
    }

    @Test
    void cancellingARunningShellRunKillsItWithinSecondsAndRecordsTheAttemptAsCancelled() throws Exception {
        HttpResponse<String> created = post("/api/jobs", "{\"name\": \"long\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"sleep 120\"}}", null);
        String jobId = json.readTree(created.body()).get("id").asText();
        JsonNode running = awaitRun(jobId, r -> "running".equals(r.get("status").asText()));
        String runId = running.get("id").asText();

        long asked = System.nanoTime();
        HttpResponse<String> cancel = post("/api/runs/" + runId + "/cancel", "", null);
        assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(200);
        JsonNode cancelled = awaitRun(jobId, r -> "cancelled".equals(r.get("status").asText()));
        assertThat(Duration.ofNanos(System.nanoTime() - asked)).as("killed on the cancel, not at the end of its 120 s sleep")
                .isLessThan(Duration.ofSeconds(60));
        JsonNode detail = json.readTree(get("/api/runs/" + cancelled.get("id").asText()).body());
        assertThat(detail.get("attempts")).hasSize(1);
        assertThat(detail.get("attempts").get(0).get("outcome").asText()).isEqualTo("cancelled");
        // a cancelled run stays cancelled: the job's one-off completes, nothing retries it
        assertThat(json.readTree(get("/api/jobs/" + jobId).body()).get("status").asText()).isEqualTo("completed");
    }

    @Test
    void healthAndReadinessAndMetricsAnswer() throws Exception {
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("forgeflow_worker_slots").contains("jvm_");
    }

    @Test
    void errorsAnswerInTheApiShapeWithoutStackTraces() throws Exception {
        HttpResponse<String> bad = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", \"priority\": 11, "
                + "\"payload\": {\"command\": \"true\"}}", null);
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(json.readTree(bad.body()).get("field").asText()).isEqualTo("priority");
        HttpResponse<String> missing = get("/api/jobs/00000000-0000-7000-8000-000000000000");
        assertThat(missing.statusCode()).isEqualTo(404);
        HttpResponse<String> route = get("/api/nothing-here");
        assertThat(route.statusCode()).isEqualTo(404);
        assertThat(route.body()).contains("\"error\"").doesNotContain("Exception");
    }

    JsonNode awaitRun(String jobId, Predicate<JsonNode> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        JsonNode last = null;
        while (Instant.now().isBefore(deadline)) {
            JsonNode page = json.readTree(get("/api/runs?job_id=" + jobId).body());
            if (page.get("items").size() > 0) {
                last = page.get("items").get(0);
                if (condition.test(last)) {
                    return last;
                }
            }
            Thread.onSpinWait();
            synchronized (this) {
                wait(50);
            }
        }
        throw new AssertionError("run of job " + jobId + " did not reach the expected state; last seen: " + last);
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body, String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
