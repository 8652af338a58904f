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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Editing a recurring job while the scheduler fires it, on a real node and PostgreSQL: concurrent PATCHes apply one
 * after another, leave one consistent definition and schedule, and no tick fires twice.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobEditIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("observability-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "edit-worker"));
    static final List<String> CRONS = List.of("* * * * * *", "*/2 * * * * *");

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void twentyConcurrentPatchesOfACronJobLeaveOneConsistentScheduleAndNoDoubleTick() throws Exception {
        String id = json.readTree(send("POST", "/api/jobs", "{\"name\": \"edited\", \"executor\": \"reverse\", "
                + "\"payload\": {\"text\": \"v-start\"}, \"cron_expr\": \"* * * * * *\"}").body()).get("id").asText();
        awaitRuns(id, 2); // the scheduler fires it every second meanwhile

        int patches = 20;
        CyclicBarrier start = new CyclicBarrier(patches);
        ExecutorService pool = Executors.newFixedThreadPool(patches);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < patches; i++) {
                String body = "{\"name\": \"patch-" + i + "\", \"cron_expr\": \"" + CRONS.get(i % 2) + "\", "
                        + "\"priority\": " + (1 + i % 9) + ", \"payload\": {\"text\": \"v-" + i + "\"}}";
                answers.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return send("PATCH", "/api/jobs/" + id, body);
                }));
            }
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> r = answer.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
        } finally {
            pool.shutdownNow();
        }

        JsonNode job = json.readTree(send("GET", "/api/jobs/" + id, null).body());
        int winner = Integer.parseInt(job.get("name").asText().substring("patch-".length()));
        assertThat(job.get("cron_expr").asText()).as("one patch's fields, not a mix").isEqualTo(CRONS.get(winner % 2));
        assertThat(job.get("priority").asInt()).isEqualTo(1 + winner % 9);
        assertThat(job.get("payload").get("text").asText()).isEqualTo("v-" + winner);
        Instant lastChange = Instant.parse(job.get("updated_at").asText());
        Instant next = Instant.parse(job.get("next_run_at").asText());
        Duration period = Duration.ofSeconds(winner % 2 == 0 ? 1 : 2);
        assertThat(next).as("the next run follows the last change by at most its schedule's period")
                .isAfter(lastChange.minus(period)).isBefore(lastChange.plus(period).plusSeconds(2));

        List<JsonNode> runs = awaitRunsScheduledAfter(id, lastChange, 3);
        List<Instant> ticksAfter = runs.stream().map(r -> Instant.parse(r.get("scheduled_for").asText())).sorted()
                .toList();
        for (int i = 1; i < ticksAfter.size(); i++) {
            Duration between = Duration.between(ticksAfter.get(i - 1), ticksAfter.get(i));
            assertThat(between.toNanos() % period.toNanos()).as("ticks after the last change follow its schedule "
                    + "(every %s): %s", period, ticksAfter).isZero();
        }
        Set<String> ticks = new HashSet<>();
        for (JsonNode run : allRuns(id)) {
            assertThat(ticks.add(run.get("scheduled_for").asText())).as("tick %s fired once", run.get("scheduled_for"))
                    .isTrue();
        }
        for (JsonNode run : runs) {
            assertThat(run.get("priority").asInt()).as("ticks after the last change carry its priority")
                    .isEqualTo(1 + winner % 9);
        }
        send("DELETE", "/api/jobs/" + id + "?cancel_running=true", null);
    }

    @Test
    void aWebhookEditedAsReadKeepsItsSecretHeaderAndANewValueReplacesIt() throws Exception {
        String id = json.readTree(send("POST", "/api/jobs", "{\"name\": \"hook\", \"executor\": \"http\", "
                + "\"payload\": {\"url\": \"https://example.test/a\", \"method\": \"POST\", \"headers\": "
                + "{\"Authorization\": \"Bearer s3cret\", \"X-Trace\": \"t1\"}}, \"run_at\": \"2099-01-01T00:00:00Z\"}")
                .body()).get("id").asText();
        JsonNode read = json.readTree(send("GET", "/api/jobs/" + id, null).body());
        assertThat(read.at("/payload/headers/Authorization").asText()).isEqualTo("***");
        ((com.fasterxml.jackson.databind.node.ObjectNode) read.get("payload")).put("url", "https://example.test/b");

        HttpResponse<String> edited = send("PATCH", "/api/jobs/" + id, "{\"payload\": " + read.get("payload") + "}");

        assertThat(edited.statusCode()).as(edited.body()).isEqualTo(200);
        assertThat(storedPayload(id).at("/headers/Authorization").asText()).isEqualTo("Bearer s3cret");
        assertThat(storedPayload(id).at("/url").asText()).isEqualTo("https://example.test/b");

        HttpResponse<String> replaced = send("PATCH", "/api/jobs/" + id, "{\"payload\": {\"url\": "
                + "\"https://example.test/b\", \"headers\": {\"Authorization\": \"Bearer n3w\"}}}");

        assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(200);
        assertThat(storedPayload(id).at("/headers/Authorization").asText()).isEqualTo("Bearer n3w");
        assertThat(storedPayload(id).at("/headers/X-Trace").isMissingNode()).isTrue();
    }

    JsonNode storedPayload(String jobId) throws Exception {
        String text = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT payload::text FROM forgeflow.jobs WHERE id::text = :id").bind("id", jobId).mapTo(String.class).one());
        return json.readTree(text);
    }

    List<JsonNode> allRuns(String jobId) throws Exception {
        List<JsonNode> all = new ArrayList<>();
        json.readTree(send("GET", "/api/runs?limit=500&job_id=" + jobId, null).body()).get("items").forEach(all::add);
        return all;
    }

    void awaitRuns(String jobId, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (allRuns(jobId).size() < n) {
            assertThat(System.nanoTime()).as("%d runs of %s within 30 s", n, jobId).isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
    }

    List<JsonNode> awaitRunsScheduledAfter(String jobId, Instant after, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            List<JsonNode> later = allRuns(jobId).stream()
                    .filter(r -> Instant.parse(r.get("scheduled_for").asText()).isAfter(after)).toList();
            if (later.size() >= n) {
                return later;
            }
            assertThat(System.nanoTime()).as("%d ticks after %s within 30 s", n, after).isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
                .timeout(Duration.ofSeconds(30));
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
