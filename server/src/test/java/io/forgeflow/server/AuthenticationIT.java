package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real node on a real PostgreSQL with API tokens configured (auth-test-config.yml): 401 without or with a bad
 * token, 403 without the scope, 200/201 with it; the probes and the OpenAPI document stay open; /metrics takes its
 * token; a secret header of
 * an http job is shown as "***" but sent for real.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AuthenticationIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("auth-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "auth-worker"));

    static final String ADMIN = "e2e-admin-0123456789";
    static final String READ = "e2e-read-0123456789";
    static final String SUBMIT = "e2e-submit-0123456789";
    static final String HASHED_READ_OPERATE = "e2e-hashed-0123456789";
    static final String METRICS = "e2e-metrics-0123456789";
    static final String UNKNOWN = "01900000-0000-7000-8000-000000000000";

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void withoutATokenOrWithABadOneEveryApiRouteIs401() throws Exception {
        for (String path : new String[]{"/api/jobs", "/api/runs", "/api/stats", "/api/nodes", "/api/events",
                "/api/jobs/" + UNKNOWN, "/api/nothing"}) {
            HttpResponse<String> none = get(path, null);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"forgeflow\"");
            assertThat(json.readTree(none.body()).get("error").asText()).contains("Authorization: Bearer");
            HttpResponse<String> bad = get(path, "not-a-token");
            assertThat(bad.statusCode()).as(path).isEqualTo(401);
            assertThat(bad.headers().firstValue("WWW-Authenticate").orElse("")).contains("invalid_token");
        }
        HttpResponse<String> submit = post("/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"touch /tmp/forgeflow-pwned\"}}", null);
        assertThat(submit.statusCode()).isEqualTo(401);
        HttpResponse<String> inQuery = get("/api/jobs?access_token=" + ADMIN, null);
        assertThat(inQuery.statusCode()).isEqualTo(401);
        assertThat(json.readTree(get("/api/jobs", ADMIN).body()).get("items")).as("nothing was submitted").isEmpty();
    }

    @Test
    void aSlowBodyIsAnsweredBeforeItIsReadAndItsConnectionClosed() throws Exception {
        // issue 39's flood, one connection of it: a 30 MB body declared, one byte sent; without a token, then with one
        for (String token : new String[]{null, ADMIN}) {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", APP.getLocalPort())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("POST /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
                        + "Content-Type: application/json\r\nContent-Length: 30000000\r\n\r\n{")
                        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                String answer = new String(socket.getInputStream().readAllBytes(),
                        java.nio.charset.StandardCharsets.ISO_8859_1); // to the end: the node closes the connection
                assertThat(answer).as(token == null ? "without a token" : "with a token")
                        .startsWith(token == null ? "HTTP/1.1 401" : "HTTP/1.1 413");
            }
        }
    }

    @Test
    void aTokenWithoutTheRoutesScopeIs403AndWithItTheRouteAnswers() throws Exception {
        HttpResponse<String> readSubmits = post("/api/jobs", shellJob("r", "true"), READ);
        assertThat(readSubmits.statusCode()).isEqualTo(403);
        assertThat(json.readTree(readSubmits.body()).get("error").asText()).contains("'submit' scope");
        assertThat(readSubmits.headers().firstValue("WWW-Authenticate").orElse(""))
                .contains("error=\"insufficient_scope\", scope=\"submit\"");

        HttpResponse<String> created = post("/api/jobs", shellJob("hello", "echo authenticated"), SUBMIT);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String jobId = json.readTree(created.body()).get("id").asText();

        assertThat(get("/api/jobs/" + jobId, SUBMIT).statusCode()).as("submit does not read").isEqualTo(403);
        assertThat(get("/api/jobs/" + jobId, READ).statusCode()).isEqualTo(200);
        assertThat(post("/api/jobs/" + jobId + "/trigger", "", READ).statusCode()).isEqualTo(403);
        assertThat(post("/api/jobs/" + jobId + "/trigger", "", HASHED_READ_OPERATE).statusCode()).isEqualTo(201);
        assertThat(post("/api/jobs/" + UNKNOWN + "/pause", "", HASHED_READ_OPERATE).statusCode()).isEqualTo(404);
        assertThat(post("/api/runs/" + UNKNOWN + "/requeue", "", ADMIN).statusCode()).isEqualTo(404);
        assertThat(get("/api/jobs/not-an-id", READ).statusCode()).isEqualTo(404);

        JsonNode run = awaitSucceeded(jobId);
        assertThat(run.get("output").asText()).contains("authenticated");
        assertThat(get("/api/stats", HASHED_READ_OPERATE).statusCode()).isEqualTo(200);
        assertThat(get("/api/nodes", ADMIN).statusCode()).isEqualTo(200);
    }

    @Test
    void theEventStreamNeedsTheReadScope() throws Exception {
        assertThat(get("/api/events", SUBMIT).statusCode()).isEqualTo(403);
        HttpResponse<java.io.InputStream> stream = http.send(authorized(HttpRequest.newBuilder(uri("/api/events"))
                .timeout(Duration.ofSeconds(10)).GET(), READ).build(), HttpResponse.BodyHandlers.ofInputStream());
        try (java.io.InputStream body = stream.body()) {
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(stream.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        }
    }

    @Test
    void theOpenApiDocumentIsPublicAndOnlyReadingItIs() throws Exception {
        HttpResponse<String> doc = get("/api/openapi.json", null);

        assertThat(doc.statusCode()).as(doc.body()).isEqualTo(200);
        assertThat(doc.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        assertThat(json.readTree(doc.body())).isEqualTo(json.readTree(io.forgeflow.adapter.rest.OpenApiResource.load()));
        assertThat(json.readTree(doc.body()).get("openapi").asText()).startsWith("3.1.");
        assertThat(post("/api/openapi.json", "{}", null).statusCode()).isEqualTo(401);
        assertThat(get("/api/openapi.yaml", null).statusCode()).isEqualTo(401);
    }

    @Test
    void theProbesStayOpenAndMetricsTakeTheirOwnToken() throws Exception {
        assertThat(get("/healthz", null).statusCode()).isEqualTo(200);
        HttpResponse<String> ready = get("/readyz", null);
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");

        assertThat(get("/metrics", null).statusCode()).isEqualTo(401);
        assertThat(get("/metrics", ADMIN).statusCode()).isEqualTo(401);
        HttpResponse<String> metrics = get("/metrics", METRICS);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("forgeflow_worker_slots");
    }

    @Test
    void aSecretHeaderIsShownMaskedButSentForReal() throws Exception {
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        receiver.createContext("/hook", exchange -> {
            received.add(exchange.getRequestHeaders().getFirst("Authorization"));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        try {
            String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
            HttpResponse<String> created = post("/api/jobs", "{\"name\": \"hook\", \"executor\": \"http\", "
                    + "\"payload\": {\"url\": \"" + url + "\", \"headers\": {\"Authorization\": \"Bearer hook-secret\"}}}",
                    ADMIN);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            JsonNode job = json.readTree(created.body());
            assertThat(job.get("payload").get("headers").get("Authorization").asText()).isEqualTo("***");
            assertThat(get("/api/jobs/" + job.get("id").asText(), READ).body()).doesNotContain("hook-secret");

            assertThat(received.poll(30, TimeUnit.SECONDS)).isEqualTo("Bearer hook-secret");
            awaitSucceeded(job.get("id").asText());
        } finally {
            receiver.stop(0);
        }
    }

    static String shellJob(String name, String command) {
        return "{\"name\": \"" + name + "\", \"executor\": \"shell\", \"payload\": {\"command\": \"" + command + "\"}}";
    }

    JsonNode awaitSucceeded(String jobId) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        JsonNode last = null;
        while (Instant.now().isBefore(deadline)) {
            JsonNode items = json.readTree(get("/api/runs?job_id=" + jobId, READ).body()).get("items");
            for (JsonNode run : items) {
                last = run;
                if ("succeeded".equals(run.get("status").asText())) {
                    return run;
                }
            }
            synchronized (this) {
                wait(50);
            }
        }
        throw new AssertionError("no run of job " + jobId + " succeeded; last seen: " + last);
    }

    HttpResponse<String> get(String path, String token) throws Exception {
        return http.send(authorized(HttpRequest.newBuilder(uri(path)).GET(), token).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .header("Content-Type", "application/json");
        return http.send(authorized(b, token).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpRequest.Builder authorized(HttpRequest.Builder b, String token) {
        return token == null ? b : b.header("Authorization", "Bearer " + token);
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
