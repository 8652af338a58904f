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
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's own retry policy through a real node on a real PostgreSQL, with real failing shell processes. The node's
 * own retry base is one hour, so a run retried within seconds was backed off by its job's policy, not the node's.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobRetryPolicyIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "retry-policy-worker"),
            ConfigOverride.config("forgeflow.retryBase", "1h"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void aJobWithBase1AndMax2IsRetriedWithinThoseBoundsOnTheDatabaseClock() throws Exception {
        String jobId = submit("{\"name\": \"flaky\", \"executor\": \"shell\", \"max_attempts\": 3, "
                + "\"payload\": {\"command\": \"exit 1\"}, \"retry\": {\"base_seconds\": 1, \"max_seconds\": 2}}");

        JsonNode run = awaitRun(jobId, r -> "dead".equals(r.get("status").asText()));

        assertThat(run.get("attempt").asInt()).isEqualTo(3);
        assertThat(run.get("retry").get("base_seconds").asInt()).isEqualTo(1);
        assertThat(run.get("retry").get("max_seconds").asInt()).isEqualTo(2);
        JsonNode attempts = json.readTree(get("/api/runs/" + run.get("id").asText()).body()).get("attempts");
        assertThat(attempts).hasSize(3);
        // the last retry's due time is kept on the dead run: within [end of attempt 2, + min(2 s, 1 s * 2^1)]
        Instant secondEnded = Instant.parse(attempts.get(1).get("finished_at").asText());
        Instant due = Instant.parse(run.get("scheduled_for").asText());
        assertThat(due).isBetween(secondEnded, secondEnded.plusSeconds(2));
        assertThat(Instant.parse(attempts.get(2).get("started_at").asText())).isAfterOrEqualTo(due);
        // the first retry: due within 1 s of the first attempt's end, so it started within 1 s plus a claim's delay
        Instant firstEnded = Instant.parse(attempts.get(0).get("finished_at").asText());
        assertThat(Instant.parse(attempts.get(1).get("started_at").asText()))
                .isBetween(firstEnded, firstEnded.plusSeconds(1).plusMillis(900));
    }

    @Test
    void aPatchGivesAWaitingJobItsPolicy() throws Exception {
        String jobId = submit("{\"name\": \"later\", \"executor\": \"shell\", \"max_attempts\": 2, "
                + "\"payload\": {\"command\": \"exit 1\"}, \"run_at\": \"" + Instant.now().plus(Duration.ofHours(1))
                + "\", \"retry\": {\"base_seconds\": 3600}}");

        HttpResponse<String> patched = send("PATCH", "/api/jobs/" + jobId,
                "{\"run_at\": null, \"retry\": {\"base_seconds\": 1, \"max_seconds\": 2}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        assertThat(json.readTree(patched.body()).get("retry").get("max_seconds").asInt()).isEqualTo(2);

        JsonNode run = awaitRun(jobId, r -> "dead".equals(r.get("status").asText()));
        JsonNode attempts = json.readTree(get("/api/runs/" + run.get("id").asText()).body()).get("attempts");
        Instant firstEnded = Instant.parse(attempts.get(0).get("finished_at").asText());
        assertThat(Instant.parse(run.get("scheduled_for").asText())).isBetween(firstEnded, firstEnded.plusSeconds(1));
        assertThat(run.get("retry").get("base_seconds").asInt()).isEqualTo(1);
    }

    @Test
    void badPoliciesAreRefusedWith422NamingTheField() throws Exception {
        HttpResponse<String> r = send("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\"}, \"retry\": {\"base_seconds\": 5, \"max_seconds\": 1}}");

        assertThat(r.statusCode()).isEqualTo(422);
        JsonNode error = json.readTree(r.body());
        assertThat(error.get("code").asText()).isEqualTo("validation_failed");
        assertThat(error.get("field").asText()).isEqualTo("retry.base_seconds");
        HttpResponse<String> unknown = send("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\"}, \"retry\": {\"factor\": 2}}");
        assertThat(unknown.statusCode()).isEqualTo(422);
        assertThat(json.readTree(unknown.body()).get("field").asText()).isEqualTo("retry.factor");
    }

    String submit(String body) throws Exception {
        HttpResponse<String> created = send("POST", "/api/jobs", body);
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
        throw new AssertionError("the run of job " + jobId + " did not get there in time; last seen: " + last);
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
