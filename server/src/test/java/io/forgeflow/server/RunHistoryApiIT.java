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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 46 through a node: with FORGEFLOW_HISTORY_AFTER of 1 s the leader moves finished runs to run_history, and the
 * API reads them as before: by id with their attempts, in the lists and the dead-letter queue, and a requeue brings a
 * moved dead run back to run again.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RunHistoryApiIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "history-node"),
            ConfigOverride.config("forgeflow.historyAfter", "1s"),
            ConfigOverride.config("forgeflow.retentionInterval", "200ms"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void movedRunsReadAsBeforeAndADeadOneIsRequeuedFromHistory() throws Exception {
        String ok = submit("{\"name\": \"ok\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo hi\"}}");
        String failing = submit("{\"name\": \"failing\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"echo boom >&2; exit 3\"}}");
        await("both runs end", () -> body("/api/runs?job_id=" + ok).contains("\"succeeded\"")
                && body("/api/runs?job_id=" + failing).contains("\"dead\""));
        String okRun = json.readTree(body("/api/runs?job_id=" + ok)).get("items").get(0).get("id").asText();
        String deadRun = json.readTree(body("/api/runs?job_id=" + failing)).get("items").get(0).get("id").asText();
        JsonNode okBefore = json.readTree(body("/api/runs/" + okRun));
        JsonNode deadBefore = json.readTree(body("/api/runs/" + deadRun));

        await("both moved to history", () -> inHistory(okRun) && inHistory(deadRun));

        assertThat(json.readTree(body("/api/runs/" + okRun))).isEqualTo(okBefore);
        assertThat(json.readTree(body("/api/runs/" + deadRun))).isEqualTo(deadBefore);
        assertThat(deadBefore.get("attempts")).hasSize(1);
        assertThat(json.readTree(body("/api/runs?status=dead")).get("items")).extracting(n -> n.get("id").asText())
                .containsExactly(deadRun);
        assertThat(json.readTree(body("/api/runs?job_id=" + ok)).get("items")).extracting(n -> n.get("id").asText())
                .containsExactly(okRun);

        HttpResponse<String> requeued = post("/api/runs/" + deadRun + "/requeue");
        assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
        assertThat(inHistory(deadRun)).isFalse();
        await("the requeued run runs again and dies again", () -> {
            JsonNode run = read("/api/runs/" + deadRun);
            return run.get("status").asText().equals("dead") && run.get("attempts").size() == 2;
        });
        Scrape metrics = new Scrape(body("/metrics"));
        assertThat(metrics.value("forgeflow_history_moved_total")).isGreaterThanOrEqualTo(2);
    }

    boolean inHistory(String runId) {
        return pg.jdbi().withHandle(h -> h.select("SELECT count(*) FROM run_history WHERE id = CAST(? AS uuid)", runId)
                .mapTo(Long.class).one()) == 1;
    }

    JsonNode read(String path) {
        try {
            return json.readTree(body(path));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
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

    HttpResponse<String> post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    String body(String path) {
        try {
            return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
