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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood of readiness probes beside running jobs: 500 concurrent {@code /readyz} calls, in waves, while 16 shell jobs
 * run on the same node. The probe is cached and runs on a connection of its own, so the heartbeats keep their pool:
 * every job succeeds in its first attempt, and the database saw one probe connection.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReadinessFloodIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", ClusterProcessIT::pgUrl),
            ConfigOverride.config("forgeflow.workerId", "flooded-node"),
            ConfigOverride.config("forgeflow.concurrency", "16"),
            ConfigOverride.config("forgeflow.leaseDuration", "6s"),
            ConfigOverride.config("forgeflow.heartbeatInterval", "1s"));

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void fiveHundredConcurrentProbesStarveNoHeartbeat() throws Exception {
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            jobs.add(submit("{\"name\": \"busy-" + i + "\", \"executor\": \"shell\", \"max_attempts\": 1, "
                    + "\"payload\": {\"command\": \"sleep 8\"}}"));
        }
        awaitTrue(Duration.ofSeconds(60), "16 runs running", () -> count("running") == 16);

        int ok = 0;
        int total = 0;
        long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
        while (System.nanoTime() < end) {
            List<CompletableFuture<HttpResponse<String>>> wave = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                wave.add(http.sendAsync(HttpRequest.newBuilder(url("/readyz")).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> r : wave) {
                total++;
                if (r.get(60, TimeUnit.SECONDS).statusCode() == 200) {
                    ok++;
                }
            }
        }
        System.out.println("readyz flood: " + total + " probes, " + ok + " answered 200");
        assertThat(ok).isEqualTo(total);
        assertThat(probeSessions()).as("backends of the readiness probe").isEqualTo(1);

        awaitTrue(Duration.ofSeconds(60), "every run ended", () -> count("running") == 0 && count("pending") == 0);
        for (String job : jobs) {
            JsonNode run = json.readTree(get("/api/runs?job_id=" + job)).get("items").get(0);
            assertThat(run.get("status").asText()).as("run of %s: %s", job, run).isEqualTo("succeeded");
            assertThat(run.get("attempt").asInt()).isEqualTo(1);
        }
    }

    int probeSessions() {
        return pg.jdbi().withHandle(h -> h.select("SELECT count(*) FROM pg_stat_activity "
                + "WHERE application_name = 'readiness probe' AND datname = current_database()")
                .mapTo(Integer.class).one());
    }

    long count(String status) throws Exception {
        return json.readTree(get("/api/stats")).get(status).asLong();
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }

    String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(url(path)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    String submit(String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url("/api/jobs"))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("id").asText();
    }

    interface Check {
        boolean holds() throws Exception;
    }

    static void awaitTrue(Duration max, String what, Check check) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + max + " for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling a condition with a deadline
        }
    }
}
