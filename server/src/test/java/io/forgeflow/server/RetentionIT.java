package io.forgeflow.server;

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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leader deletes history older than FORGEFLOW_RETENTION on its own: with a retention of 2 s, a finished run and
 * its completed one-off job disappear, a recurring job stays, and the deletions are counted.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RetentionIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "retention-node"),
            ConfigOverride.config("forgeflow.retention", "2s"),
            ConfigOverride.config("forgeflow.retentionInterval", "200ms"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void aFinishedRunAndItsCompletedJobAreDeletedOnceOlderThanTheRetention() throws Exception {
        String recurring = submit("{\"name\": \"kept\", \"executor\": \"shell\", \"cron_expr\": \"0 0 1 1 *\", "
                + "\"payload\": {\"command\": \"true\"}}");
        String oneOff = submit("{\"name\": \"ephemeral\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}");
        await("the run succeeds", () -> body("/api/runs?job_id=" + oneOff).contains("\"succeeded\""));
        String runId = json.readTree(body("/api/runs?job_id=" + oneOff)).get("items").get(0).get("id").asText();

        await("the run is deleted", () -> status("/api/runs/" + runId) == 404);
        await("its completed job is deleted", () -> status("/api/jobs/" + oneOff) == 404);

        assertThat(status("/api/jobs/" + recurring)).isEqualTo(200);
        Scrape metrics = new Scrape(body("/metrics"));
        assertThat(metrics.value("forgeflow_retention_deleted_total", "table=\"runs\"")).isGreaterThanOrEqualTo(1);
        assertThat(metrics.value("forgeflow_retention_deleted_total", "table=\"jobs\"")).isGreaterThanOrEqualTo(1);
    }

    void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
    }

    String submit(String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/api/jobs")).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("id").asText();
    }

    String body(String path) {
        return send(path).body();
    }

    int status(String path) {
        return send(path).statusCode();
    }

    HttpResponse<String> send(String path) {
        try {
            return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
