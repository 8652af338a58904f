package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster's default notices (FORGEFLOW_NOTIFY_URL, FORGEFLOW_NOTIFY_ON) on a real node: a job submitted without
 * notify gets the default and its dead run is noticed (unsigned: no secret); a job's own notify wins; a batch's jobs
 * get the default as a job alone does; the notices' own jobs get none; a user's key notice:... is refused.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class NoticeDefaultsIT {
    static final List<String> BODIES = new CopyOnWriteArrayList<>();
    static final List<String> SIGNATURES = new CopyOnWriteArrayList<>();
    static final HttpServer RECEIVER = receiver();

    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "notice-defaults"),
            ConfigOverride.config("forgeflow.notifyUrl", NoticeDefaultsIT::hook),
            ConfigOverride.config("forgeflow.notifyOn", "dead"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    static HttpServer receiver() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/hook", exchange -> {
                BODIES.add(new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                String signature = exchange.getRequestHeaders().getFirst("X-ForgeFlow-Signature");
                SIGNATURES.add(signature == null ? "none" : signature);
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String hook() {
        return "http://127.0.0.1:" + RECEIVER.getAddress().getPort() + "/hook";
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.stop(0);
    }

    @Test
    void aJobWithoutNotifyGetsTheDefaultAndItsDeadRunIsNoticedOnce() throws Exception {
        String id = submit("{\"name\": \"defaulted\", \"executor\": \"shell\", \"payload\": {\"command\": \"exit 1\"}, "
                + "\"max_attempts\": 1}");
        JsonNode job = json.readTree(get("/api/jobs/" + id).body());
        assertThat(job.get("notify").get("url").asText()).isEqualTo(hook());
        assertThat(job.get("notify").get("on")).extracting(JsonNode::asText).containsExactly("dead");
        String own = submit("{\"name\": \"own\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"notify\": {\"url\": \"https://hooks.example.com/own\", \"on\": [\"paused\"]}}");
        assertThat(json.readTree(get("/api/jobs/" + own).body()).get("notify").get("url").asText())
                .isEqualTo("https://hooks.example.com/own");
        HttpResponse<String> batch = post("/api/batches", "{\"jobs\": [{\"name\": \"in-a-batch\", \"executor\": "
                + "\"shell\", \"payload\": {\"command\": \"true\"}}, {\"name\": \"batched-own\", \"executor\": "
                + "\"shell\", \"payload\": {\"command\": \"true\"}, \"notify\": {\"url\": "
                + "\"https://hooks.example.com/batch\", \"on\": [\"recovered\"]}}]}");
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(201);
        HttpResponse<String> badBatch = post("/api/batches", "{\"jobs\": [{\"name\": \"b\", \"executor\": "
                + "\"shell\", \"payload\": {\"command\": \"true\"}, \"notify\": {\"url\": "
                + "\"https://hooks.example.com/batch\", \"on\": []}}]}");
        assertThat(badBatch.statusCode()).as(badBatch.body()).isEqualTo(422);
        assertThat(json.readTree(badBatch.body()).get("field").asText()).isEqualTo("jobs[0].notify.on");
        HttpResponse<String> reserved = post("/api/jobs", "{\"name\": \"r\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\"}, \"idempotency_key\": \"notice:1\"}");
        assertThat(reserved.statusCode()).as(reserved.body()).isEqualTo(422);
        assertThat(json.readTree(reserved.body()).get("field").asText()).isEqualTo("idempotency_key");

        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (BODIES.isEmpty() && Instant.now().isBefore(deadline)) {
            Thread.sleep(50);
        }
        NoticesIT.settle(pg); // nothing left that could send a second notice

        assertThat(BODIES).singleElement().satisfies(body -> {
            JsonNode notice = json.readTree(body);
            assertThat(notice.get("event").asText()).isEqualTo("dead");
            assertThat(notice.get("job_id").asText()).isEqualTo(id);
            assertThat(notice.get("error").asText()).isEqualTo("exit code 1");
        });
        assertThat(SIGNATURES).containsExactly("none");
        JsonNode notices = json.readTree(get("/api/jobs?queue=forgeflow-notices").body()).get("items");
        assertThat(notices).singleElement().satisfies(n -> assertThat(n.get("notify").isNull()).isTrue());
        JsonNode batched = json.readTree(get("/api/jobs?name_prefix=in-a-batch").body()).get("items");
        assertThat(batched).as("a batch's job gets the default as a job alone does").singleElement().satisfies(n -> {
            assertThat(n.get("notify").get("url").asText()).isEqualTo(hook());
            assertThat(n.get("notify").get("on")).extracting(JsonNode::asText).containsExactly("dead");
        });
        JsonNode batchedOwn = json.readTree(get("/api/jobs?name_prefix=batched-own").body()).get("items");
        assertThat(batchedOwn).singleElement().satisfies(n -> {
            assertThat(n.get("notify").get("url").asText()).isEqualTo("https://hooks.example.com/batch");
            assertThat(n.get("notify").get("on")).extracting(JsonNode::asText).containsExactly("recovered");
        });
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
        return http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
