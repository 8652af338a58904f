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
    static final String HUNTED_PASSWORD = secret("db");
    static final String HUNTED_TOKEN = secret("token");
    static final String HUNTED_METRICS = secret("metrics");
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static NodeProcess node;

    @BeforeAll
    static void start() throws Exception {
        // trust authentication ignores the password, which the node still holds in its environment
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + "&password=" + DB_PASSWORD + HUNTED_PASSWORD;
        node = NodeProcess.start("secrets-node", "api,scheduler,worker", url, Map.of(
                "FORGEFLOW_API_TOKENS", "admin:" + ADMIN_TOKEN + ",submit:" + SUBMIT_TOKEN + ",read:" + HUNTED_TOKEN,
                "FORGEFLOW_METRICS_TOKEN", METRICS_TOKEN + HUNTED_METRICS,
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

    /**
     * A job that hunts for the node's secrets: its parent's environment, every process's environment and argv it can
     * see, and every text file under its working directory (the node's). It prints only what matches the secrets'
     * common prefix, which it builds at run time so that its own argv does not match.
     */
    static final String HUNT = "p=ff; p=\"${p}hunted\"; {"
            + " echo parent $PPID; cat /proc/$PPID/environ;"
            + " for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat \"$f\"; echo; done;"
            + " grep -r -I -h -o \"$p[-a-z0-9]*\" . ;"
            + " } 2>/dev/null | tr '\\0' '\\n' | grep -a -o \"$p[-a-z0-9]*\" | sort -u; echo hunt-done";

    /** A secret with the prefix the hunting job looks for, random so that no file holds it. */
    static String secret(String what) {
        return "ff" + "hunted-" + what + "-" + Long.toHexString(new java.security.SecureRandom().nextLong() >>> 1);
    }

    static String hunt(NodeProcess on, String token) throws Exception {
        HttpResponse<String> created = send(HttpRequest.newBuilder(URI.create(on.url("/api/jobs")))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("name", "hunt",
                        "executor", "shell", "payload", Map.of("command", HUNT))))));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String jobId = JSON.readTree(created.body()).get("id").asText();
        String output = awaitSucceeded(on, token, jobId, Duration.ofSeconds(90)).get("output").asText();
        assertThat(output).contains("hunt-done");
        return output;
    }

    @Test
    void aShellJobReadingProcAndTheNodesDirectoryFindsNoSecretOfTheNode() throws Exception {
        String output = hunt(node, ADMIN_TOKEN);

        assertThat(output).doesNotContain(HUNTED_PASSWORD).doesNotContain(HUNTED_TOKEN).doesNotContain(HUNTED_METRICS);
    }

    @Test
    void theNodeSaysHowItContainsItsJobs() throws Exception {
        JsonNode nodes = awaitNodes(node, ADMIN_TOKEN);

        assertThat(nodes.get(0).get("containment").asText()).isEqualTo("pid-namespace");
        assertThat(nodes.get(0).get("job_user").isNull()).isTrue();
        assertThat(node.logText()).contains("shell job containment: pid-namespace")
                .contains("node process made non-dumpable").contains("shell jobs run as root");
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

    /** The items of GET /api/nodes once the node's first heartbeat wrote its row. */
    static JsonNode awaitNodes(NodeProcess on, String token) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            JsonNode items = JSON.readTree(send(HttpRequest.newBuilder(URI.create(on.url("/api/nodes")))
                    .header("Authorization", "Bearer " + token)).body()).get("items");
            if (items.size() > 0 || System.nanoTime() > deadline) {
                return items;
            }
            TimeUnit.MILLISECONDS.sleep(200); // polling a condition with a deadline
        }
    }

    static JsonNode awaitSucceeded(String jobId, Duration max) throws Exception {
        return awaitSucceeded(node, ADMIN_TOKEN, jobId, max);
    }

    static JsonNode awaitSucceeded(NodeProcess node, String token, String jobId, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(node.url("/api/runs?job_id=" + jobId)))
                    .header("Authorization", "Bearer " + token));
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
