package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real node process configured with a database password, API tokens and a metrics token: a shell job running
 * {@code env} sees none of them (only what FORGEFLOW_SHELL_ENV lists is passed), and the admin port refuses a task
 * sent by a foreign web page.
 */
class NodeSecretsProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String DB_PASSWORD = "db-pass-4f1c9e";
    static final String ADMIN_TOKEN = "api-admin-token-8d2b7a61";
    static final String SUBMIT_TOKEN = "api-submit-token-1e9c44f0";
    static final String METRICS_TOKEN = "metrics-token-77a0c3d5";
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static NodeProcess node;

    @BeforeAll
    static void start() throws Exception {
        // trust authentication ignores the password, which the node still holds in its environment
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + "&password=" + DB_PASSWORD;
        node = NodeProcess.start("secrets-node", "api,scheduler,worker", url, Map.of(
                "FORGEFLOW_API_TOKENS", "admin:" + ADMIN_TOKEN + ",submit:" + SUBMIT_TOKEN,
                "FORGEFLOW_METRICS_TOKEN", METRICS_TOKEN,
                "FORGEFLOW_POLL_INTERVAL", "200ms",
                "FORGEFLOW_SHELL_ENV", "FF_PASSED_ON",
                "FF_PASSED_ON", "visible-to-jobs",
                "FF_NOT_LISTED", "hidden-from-jobs"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aShellJobRunningEnvPrintsNoSecretOfTheNode() throws Exception {
        HttpResponse<String> created = send(HttpRequest.newBuilder(URI.create(node.url("/api/jobs")))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"name\": \"env\", \"executor\": \"shell\", \"payload\": {\"command\": \"env\"}}")));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String jobId = JSON.readTree(created.body()).get("id").asText();

        JsonNode run = awaitSucceeded(jobId, Duration.ofSeconds(60));
        String output = run.get("output").asText();

        assertThat(output).contains("FORGEFLOW_RUN_ID=" + run.get("id").asText()).contains("PATH=")
                .contains("FF_PASSED_ON=visible-to-jobs");
        assertThat(output).doesNotContain(DB_PASSWORD).doesNotContain(ADMIN_TOKEN).doesNotContain(SUBMIT_TOKEN)
                .doesNotContain(METRICS_TOKEN).doesNotContain("hidden-from-jobs")
                .doesNotContain("FORGEFLOW_DATABASE_URL").doesNotContain("FORGEFLOW_API_TOKENS")
                .doesNotContain("FORGEFLOW_METRICS_TOKEN").doesNotContain("FORGEFLOW_SHELL_ENV");
    }

    @Test
    void theNodesLogHoldsNeitherTheDatabasePasswordNorAToken() throws Exception {
        send(HttpRequest.newBuilder(URI.create(node.url("/api/stats"))).header("Authorization", "Bearer " + ADMIN_TOKEN));
        assertThat(node.logText()).contains("database:").doesNotContain(DB_PASSWORD).doesNotContain(ADMIN_TOKEN)
                .doesNotContain(METRICS_TOKEN);
    }

    @Test
    void theAdminPortRefusesATaskFromAForeignOrigin() throws Exception {
        URI logLevel = URI.create("http://127.0.0.1:" + node.adminPort + "/tasks/log-level?logger=io.forgeflow&level=OFF");
        HttpResponse<String> foreign = send(HttpRequest.newBuilder(logLevel).header("Origin", "https://evil.example")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(foreign.statusCode()).isEqualTo(403);
        assertThat(foreign.body()).contains("Origin header");
        HttpResponse<String> crossSite = send(HttpRequest.newBuilder(logLevel).header("Sec-Fetch-Site", "cross-site")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(crossSite.statusCode()).isEqualTo(403);

        // an operator's curl still works (and sets the level back to what it was)
        HttpResponse<String> curl = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort
                + "/tasks/log-level?logger=io.forgeflow.unused&level=INFO")).POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(curl.statusCode()).isEqualTo(200);
    }

    static JsonNode awaitSucceeded(String jobId, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(node.url("/api/runs?job_id=" + jobId)))
                    .header("Authorization", "Bearer " + ADMIN_TOKEN));
            JsonNode items = JSON.readTree(r.body()).get("items");
            if (items != null && items.size() > 0) {
                last = items.get(0);
                if ("succeeded".equals(last.get("status").asText())) {
                    return last;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
        throw new AssertionError("run of job " + jobId + " did not succeed within " + max + "; last: " + last
                + "\n" + node.logText());
    }
}
