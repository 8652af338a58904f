package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failure semantics through a real node on a real PostgreSQL: an HTTP receiver on loopback answering scripted
 * statuses, and real shell processes. The node's retry base is 200 ms (test-config.yml).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FailureHandlingIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "failure-worker"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();
    /** Responses the receiver gives in order: status and headers; the last one repeats. */
    final ConcurrentLinkedQueue<Scripted> script = new ConcurrentLinkedQueue<>();
    final List<Long> arrivals = new CopyOnWriteArrayList<>();
    HttpServer receiver;

    record Scripted(int status, Map<String, String> headers) {
    }

    @BeforeEach
    void startReceiver() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            arrivals.add(System.nanoTime());
            exchange.getRequestBody().readAllBytes();
            Scripted next = script.size() > 1 ? script.poll() : script.peek();
            next.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] body = ("status " + next.status()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(next.status(), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stopReceiver() {
        receiver.stop(0);
    }

    String hook() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    @Test
    void aWebhookAnswering404IsDeadAfterOneAttemptWithTheReason() throws Exception {
        script.add(new Scripted(404, Map.of()));
        double before = scrape().value("forgeflow_permanent_failures_total", "executor=\"http\"");

        String jobId = submit("{\"name\": \"gone\", \"executor\": \"http\", \"max_attempts\": 5, "
                + "\"payload\": {\"url\": \"" + hook() + "\"}}");

        JsonNode run = awaitRun(jobId, r -> "dead".equals(r.get("status").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(1);
        assertThat(run.get("error").asText()).isEqualTo("HTTP 404 Not Found (permanent: not in payload.retry_on_status)");
        JsonNode attempts = json.readTree(get("/api/runs/" + run.get("id").asText()).body()).get("attempts");
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("failed");
        assertThat(attempts.get(0).get("retry_after_seconds").isNull()).isTrue();
        assertThat(arrivals).hasSize(1);
        assertThat(scrape().value("forgeflow_permanent_failures_total", "executor=\"http\"")).isEqualTo(before + 1);
    }

    @Test
    void a503WithRetryAfterIsRetriedNoEarlierThanItSaysAndThenSucceeds() throws Exception {
        script.add(new Scripted(503, Map.of("Retry-After", "2")));
        script.add(new Scripted(200, Map.of()));
        double before = scrape().value("forgeflow_retry_after_waits_total", "executor=\"http\"");

        String jobId = submit("{\"name\": \"busy\", \"executor\": \"http\", \"max_attempts\": 3, "
                + "\"payload\": {\"url\": \"" + hook() + "\"}}");

        JsonNode run = awaitRun(jobId, r -> "succeeded".equals(r.get("status").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(2);
        assertThat(arrivals).hasSize(2);
        // the node's base is 200 ms: without the Retry-After the retry would come within 200 ms
        assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0))).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        JsonNode attempts = json.readTree(get("/api/runs/" + run.get("id").asText()).body()).get("attempts");
        assertThat(attempts.get(0).get("error").asText()).isEqualTo("HTTP 503 Service Unavailable (Retry-After: 2s)");
        assertThat(attempts.get(0).get("retry_after_seconds").asInt()).isEqualTo(2);
        assertThat(attempts.get(1).get("outcome").asText()).isEqualTo("succeeded");
        assertThat(scrape().value("forgeflow_retry_after_waits_total", "executor=\"http\"")).isEqualTo(before + 1);
    }

    @Test
    void aShellExitCodeListedAsPermanentIsDeadAfterOneAttempt() throws Exception {
        String jobId = submit("{\"name\": \"bad-input\", \"executor\": \"shell\", \"max_attempts\": 4, "
                + "\"payload\": {\"command\": \"echo no such customer; exit 3\", \"permanent_exit_codes\": [3]}}");

        JsonNode run = awaitRun(jobId, r -> "dead".equals(r.get("status").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(1);
        assertThat(run.get("error").asText()).isEqualTo("exit code 3 (permanent: listed in payload.permanent_exit_codes)");
        assertThat(run.get("output").asText()).contains("no such customer");
    }

    @Test
    void aShellExitCodeNotListedIsRetriedUntilTheAttemptsRunOut() throws Exception {
        String jobId = submit("{\"name\": \"flaky\", \"executor\": \"shell\", \"max_attempts\": 2, "
                + "\"payload\": {\"command\": \"exit 1\", \"permanent_exit_codes\": [3]}}");

        JsonNode run = awaitRun(jobId, r -> "dead".equals(r.get("status").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(2);
        assertThat(run.get("error").asText()).isEqualTo("exit code 1");
    }

    @Test
    void aBadPermanentExitCodeListIsRefusedAtSubmissionNamingTheField() throws Exception {
        HttpResponse<String> bad = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\", \"permanent_exit_codes\": [0]}}");
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(json.readTree(bad.body()).get("field").asText()).isEqualTo("payload.permanent_exit_codes");
        HttpResponse<String> badHttp = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"http\", "
                + "\"payload\": {\"url\": \"" + hook() + "\", \"retry_on_status\": [\"503\"]}}");
        assertThat(badHttp.statusCode()).isEqualTo(422);
        assertThat(json.readTree(badHttp.body()).get("field").asText()).isEqualTo("payload.retry_on_status");
    }

    @Test
    void twentyConcurrentSubmissionsWithOneUniqueKeyCreateOneJobAndNineteenConflicts() throws Exception {
        String body = "{\"name\": \"sync-customer\", \"executor\": \"shell\", \"unique_key\": \"sync-customer-42\", "
                + "\"run_at\": \"2099-01-01T00:00:00Z\", \"payload\": {\"command\": \"true\"}}";
        CyclicBarrier together = new CyclicBarrier(20);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        Map<Integer, Integer> byStatus = new TreeMap<>();
        Set<String> created = new HashSet<>();
        Set<String> named = new HashSet<>();
        try {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                answers.add(pool.submit(() -> {
                    together.await();
                    return post("/api/jobs", body);
                }));
            }
            for (Future<HttpResponse<String>> f : answers) {
                HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
                byStatus.merge(r.statusCode(), 1, Integer::sum);
                JsonNode answer = json.readTree(r.body());
                if (r.statusCode() == 201) {
                    created.add(answer.get("id").asText());
                } else {
                    assertThat(answer.get("code").asText()).as(r.body()).isEqualTo("unique_conflict");
                    named.add(answer.get("job_id").asText());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(byStatus).isEqualTo(Map.of(201, 1, 409, 19));
        assertThat(named).isEqualTo(created);
        String live = created.iterator().next();
        HttpResponse<String> existing = post("/api/jobs",
                body.replace("}}", "}, \"unique_on_conflict\": \"return_existing\"}"));
        assertThat(existing.statusCode()).as(existing.body()).isEqualTo(200);
        assertThat(json.readTree(existing.body()).get("id").asText()).isEqualTo(live);

        HttpResponse<String> cancelled = post("/api/jobs/" + live + "/cancel", "");
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);

        String next = submit(body);
        assertThat(next).isNotEqualTo(live);
    }

    @Test
    void theKeyIsFreeAgainOnceTheRunHasSucceeded() throws Exception {
        String body = "{\"name\": \"sync-once\", \"executor\": \"shell\", \"unique_key\": \"sync-once\", "
                + "\"payload\": {\"command\": \"true\"}}";
        String first = submit(body);
        awaitRun(first, r -> "succeeded".equals(r.get("status").asText()));

        assertThat(submit(body)).isNotEqualTo(first);
    }

    @Test
    void aTriggerOrARequeueThatWouldTakeAHeldKeyIs409NamingTheHolder() throws Exception {
        String dead = submit("{\"name\": \"import\", \"executor\": \"shell\", \"unique_key\": \"import-7\", "
                + "\"payload\": {\"command\": \"exit 3\", \"permanent_exit_codes\": [3]}}");
        JsonNode deadRun = awaitRun(dead, r -> "dead".equals(r.get("status").asText()));
        String live = submit("{\"name\": \"import\", \"executor\": \"shell\", \"unique_key\": \"import-7\", "
                + "\"run_at\": \"2099-01-01T00:00:00Z\", \"payload\": {\"command\": \"true\"}}");

        HttpResponse<String> requeued = post("/api/runs/" + deadRun.get("id").asText() + "/requeue", "");
        HttpResponse<String> triggered = post("/api/jobs/" + live + "/trigger", "");

        for (HttpResponse<String> r : List.of(requeued, triggered)) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
            assertThat(json.readTree(r.body()).get("code").asText()).isEqualTo("unique_conflict");
            assertThat(json.readTree(r.body()).get("job_id").asText()).isEqualTo(live);
        }
        assertThat(json.readTree(get("/api/runs/" + deadRun.get("id").asText()).body()).get("status").asText())
                .isEqualTo("dead");
    }

    String submit(String body) throws Exception {
        HttpResponse<String> created = post("/api/jobs", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return json.readTree(created.body()).get("id").asText();
    }

    JsonNode awaitRun(String jobId, Predicate<JsonNode> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        JsonNode last = null;
        while (Instant.now().isBefore(deadline)) {
            JsonNode page = json.readTree(get("/api/runs?job_id=" + jobId).body());
            if (page.get("items").size() > 0) {
                last = page.get("items").get(0);
                if (condition.test(last)) {
                    return last;
                }
            }
            synchronized (this) {
                wait(50);
            }
        }
        throw new AssertionError("run of job " + jobId + " did not reach the expected state; last seen: " + last);
    }

    Scrape scrape() throws Exception {
        return new Scrape(get("/metrics").body());
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
