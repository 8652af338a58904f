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

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Notices (issue 45) through a real node on a real PostgreSQL: a webhook receiver on loopback (the test node allows
 * private targets, test-config.yml), a schedule whose shell command fails, the node's signing secret.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class NoticesIT {
    static final String SECRET = "notice-signing-secret";

    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "notices-worker"),
            ConfigOverride.config("forgeflow.notifySecret", SECRET));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();
    final List<Received> received = new CopyOnWriteArrayList<>();
    HttpServer receiver;

    /** One request the receiver got: its headers of interest and the exact body bytes. */
    record Received(String event, String signature, String noticeId, String contentType, byte[] body) {
        JsonNode json() throws IOException {
            return new ObjectMapper().readTree(body);
        }
    }

    @BeforeEach
    void startReceiver() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(new Received(exchange.getRequestHeaders().getFirst("X-ForgeFlow-Event"),
                    exchange.getRequestHeaders().getFirst("X-ForgeFlow-Signature"),
                    exchange.getRequestHeaders().getFirst("X-ForgeFlow-Notice-Id"),
                    exchange.getRequestHeaders().getFirst("Content-Type"), body));
            exchange.sendResponseHeaders(204, -1);
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
    void threeDeadRunsSendDeadThreeTimesAndPausedOnceSignedAndASuccessAfterTheResumeSendsRecoveredOnce()
            throws Exception {
        String id = submit("{\"name\": \"broken-hourly\", \"executor\": \"shell\", \"payload\": {\"command\": "
                + "\"echo broken >&2; exit 3\"}, \"cron_expr\": \"0 * * * *\", \"max_attempts\": 1, "
                + "\"pause_after_failures\": 3, \"notify\": {\"url\": \"" + hook() + "\", \"on\": [\"dead\", "
                + "\"paused\", \"recovered\"]}}");
        JsonNode submitted = json.readTree(get("/api/jobs/" + id).body());
        assertThat(submitted.get("notify").get("url").asText()).isEqualTo(hook());
        assertThat(submitted.get("notify").get("on")).extracting(JsonNode::asText)
                .containsExactly("dead", "paused", "recovered");
        // three past ticks, due now: each run fails its one attempt and ends dead
        HttpResponse<String> backfill = post("/api/jobs/" + id + "/backfill",
                "{\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-01T02:00:00Z\"}");
        assertThat(backfill.statusCode()).as(backfill.body()).isEqualTo(201);

        await(() -> received.size() >= 4, "four notices");
        settle();

        assertThat(received).hasSize(4);
        assertThat(received).extracting(Received::event).containsExactlyInAnyOrder("dead", "dead", "dead", "paused");
        for (Received r : received) {
            assertThat(r.signature()).as("signature of %s", r.event()).isEqualTo(sign(r.body()));
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(r.json().get("job_id").asText()).isEqualTo(id);
            assertThat(r.json().get("job_name").asText()).isEqualTo("broken-hourly");
            assertThat(r.json().get("event").asText()).isEqualTo(r.event());
        }
        List<String> deadRuns = ids(json.readTree(get("/api/runs?job_id=" + id + "&status=dead").body()));
        assertThat(deadRuns).hasSize(3);
        assertThat(received.stream().filter(r -> r.event().equals("dead")).map(r -> text(r, "run_id")))
                .containsExactlyInAnyOrderElementsOf(deadRuns);
        assertThat(received.stream().filter(r -> r.event().equals("dead")).map(r -> text(r, "error")))
                .containsOnly("exit code 3");
        Received paused = received.stream().filter(r -> r.event().equals("paused")).findFirst().orElseThrow();
        assertThat(text(paused, "note")).contains("3 dead runs in a row (pause_after_failures: 3)");
        assertThat(received.stream().mapToLong(r -> Long.parseLong(r.noticeId())).max().orElseThrow())
                .as("the pause is noticed after the dead run that caused it")
                .isEqualTo(Long.parseLong(paused.noticeId()));
        // the notices are ordinary runs of the system queue
        JsonNode noticeJobs = json.readTree(get("/api/jobs?queue=forgeflow-notices&limit=50").body()).get("items");
        assertThat(noticeJobs).hasSize(4);
        assertThat(noticeJobs).allSatisfy(j -> assertThat(j.get("executor").asText()).isEqualTo("http"));
        assertThat(noticeJobs.toString()).doesNotContain(SECRET);

        assertThat(post("/api/jobs/" + id + "/resume", "").statusCode()).isEqualTo(200);
        HttpResponse<String> fixed = send("PATCH", "/api/jobs/" + id, "{\"payload\": {\"command\": \"true\"}}");
        assertThat(fixed.statusCode()).as(fixed.body()).isEqualTo(200);
        String firstSuccess = triggeredRunSucceeds(id);
        await(() -> received.size() >= 5, "the recovered notice");
        triggeredRunSucceeds(id);
        settle();

        assertThat(received).hasSize(5);
        Received recovered = received.get(4);
        assertThat(recovered.event()).isEqualTo("recovered");
        assertThat(recovered.signature()).isEqualTo(sign(recovered.body()));
        assertThat(text(recovered, "run_id")).isEqualTo(firstSuccess);
        assertThat(recovered.json().get("error").isNull()).isTrue();
    }

    @Test
    void anOperatorsPauseSendsPausedWithItsNote() throws Exception {
        String id = submit("{\"name\": \"watched\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"cron_expr\": \"0 3 * * *\", \"notify\": {\"url\": \"" + hook() + "\", \"on\": [\"paused\"]}}");

        assertThat(post("/api/jobs/" + id + "/pause", "{\"note\": \"vendor down until Monday\"}").statusCode())
                .isEqualTo(200);
        await(() -> received.size() >= 1, "the paused notice");
        assertThat(post("/api/jobs/" + id + "/pause", "{\"note\": \"still down\"}").statusCode()).isEqualTo(200);
        settle();

        assertThat(received).singleElement().satisfies(r -> {
            assertThat(r.event()).isEqualTo("paused");
            assertThat(text(r, "note")).isEqualTo("vendor down until Monday");
            assertThat(r.json().get("run_id").isNull()).isTrue();
            assertThat(r.signature()).isEqualTo(sign(r.body()));
        });
    }

    @Test
    void aBadNotifyIsRefusedNamingTheField() throws Exception {
        String job = "{\"name\": \"x\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, \"notify\": ";
        refused(post("/api/jobs", job + "{\"url\": \"ftp://hooks.example.com/x\"}}"), "notify.url");
        refused(post("/api/jobs", job + "{\"on\": [\"dead\"]}}"), "notify.url");
        refused(post("/api/jobs", job + "{\"url\": \"https://hooks.example.com/" + "a".repeat(2000) + "\"}}"),
                "notify.url");
        refused(post("/api/jobs", job + "{\"url\": \"https://hooks.example.com/x\", \"on\": []}}"), "notify.on");
        refused(post("/api/jobs", job + "{\"url\": \"https://hooks.example.com/x\", \"on\": [\"failed\"]}}"),
                "notify.on");
        refused(post("/api/jobs", job + "{\"url\": \"https://hooks.example.com/x\", \"on\": \"dead\"}}"),
                "notify.on");
        refused(post("/api/jobs", job + "{\"url\": \"https://hooks.example.com/x\", \"secret\": \"s\"}}"),
                "notify.secret");
        refused(post("/api/jobs", job + "\"https://hooks.example.com/x\"}"), "notify");
        String id = submit(job + "{\"url\": \"https://hooks.example.com/x\"}}");
        refused(send("PATCH", "/api/jobs/" + id, "{\"notify\": {\"url\": \"https://hooks.example.com/x\", "
                + "\"on\": [\"paused\", \"exploded\"]}}"), "notify.on");
        HttpResponse<String> removed = send("PATCH", "/api/jobs/" + id, "{\"notify\": null}");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(json.readTree(removed.body()).get("notify").isNull()).isTrue();
    }

    void refused(HttpResponse<String> answer, String field) throws Exception {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(422);
        assertThat(json.readTree(answer.body()).get("field").asText()).as(answer.body()).isEqualTo(field);
    }

    /** Triggers a run of the job and waits for it to succeed; returns its id. */
    String triggeredRunSucceeds(String jobId) throws Exception {
        HttpResponse<String> triggered = post("/api/jobs/" + jobId + "/trigger", "");
        assertThat(triggered.statusCode()).as(triggered.body()).isEqualTo(201);
        String runId = json.readTree(triggered.body()).get("id").asText();
        await(() -> {
            try {
                return "succeeded".equals(json.readTree(get("/api/runs/" + runId).body()).get("status").asText());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "run " + runId + " to succeed");
        return runId;
    }

    static String sign(byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
    }

    static String text(Received r, String field) {
        try {
            return r.json().get(field).asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> ids(JsonNode page) {
        return java.util.stream.StreamSupport.stream(page.get("items").spliterator(), false)
                .map(n -> n.get("id").asText()).toList();
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("waited 60 s for " + what);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Until nothing more can be sent: the outbox is empty and no notice job's run is waiting, pending or running (a
     * notice sent twice would come from one of those), so counting what arrived is final.
     */
    static void settle() throws InterruptedException {
        settle(pg);
    }

    static void settle(PostgresExtension db) throws InterruptedException {
        await(() -> db.jdbi().withHandle(h -> h.select("SELECT (SELECT count(*) FROM notices) + (SELECT count(*) "
                + "FROM runs WHERE queue = 'forgeflow-notices' AND status IN ('waiting', 'pending', 'running'))")
                .mapTo(Long.class).one()) == 0, "the notices outbox and queue to drain");
    }

    String submit(String body) throws Exception {
        HttpResponse<String> created = post("/api/jobs", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return json.readTree(created.body()).get("id").asText();
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return send("POST", path, body);
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
