package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The job's {@code retry} policy over real HTTP (POST, PATCH, job and run responses), on the in-memory fakes. */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobRetryPolicyTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));
    static final String LATER = "{\"name\": \"hook\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
            + "\"run_at\": \"2026-03-01T13:00:00Z\"";

    Api api;
    InMemoryStore store;

    @BeforeEach
    void reset() {
        RestTestApplication app = APP.getApplication();
        store = app.store;
        MutableClock clock = app.clock;
        store.clear();
        clock.set(Instant.parse("2026-03-01T12:00:00Z"));
        api = new Api(APP.getLocalPort());
    }

    String create(String retry) {
        Api.Reply r = api.post("/api/jobs", LATER + (retry == null ? "" : ", \"retry\": " + retry) + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    Run onlyRunOf(String jobId) {
        List<Run> runs = store.allRuns().stream().filter(r -> r.jobId().equals(jobId)).toList();
        assertThat(runs).hasSize(1);
        return runs.get(0);
    }

    static JsonNode refused(Api.Reply r, String field) {
        assertThat(r.status()).as(r.body()).isEqualTo(422);
        assertThat(r.json().get("code").asText()).isEqualTo("validation_failed");
        assertThat(r.json().get("field").asText()).isEqualTo(field);
        return r.json();
    }

    @Nested
    class Submission {
        @Test
        void theJobAndItsRunShowThePolicyGiven() {
            Api.Reply r = api.post("/api/jobs", LATER + ", \"retry\": {\"base_seconds\": 1, \"max_seconds\": 2}}");

            assertThat(r.status()).as(r.body()).isEqualTo(201);
            assertThat(r.json().get("retry").get("base_seconds").asInt()).isEqualTo(1);
            assertThat(r.json().get("retry").get("max_seconds").asInt()).isEqualTo(2);
            String id = r.json().get("id").asText();
            assertThat(onlyRunOf(id).retry()).isEqualTo(new RetryOverride(1, 2));
            JsonNode run = api.get("/api/runs?job_id=" + id).json().get("items").get(0);
            assertThat(run.get("retry").get("base_seconds").asInt()).isEqualTo(1);
            assertThat(run.get("retry").get("max_seconds").asInt()).isEqualTo(2);
            JsonNode one = api.get("/api/runs/" + run.get("id").asText()).json();
            assertThat(one.get("retry").get("max_seconds").asInt()).isEqualTo(2);
            assertThat(api.get("/api/jobs/" + id).json().get("retry").get("base_seconds").asInt()).isEqualTo(1);
        }

        @Test
        void withoutAPolicyRetryIsNullAndTheNodesDefaultsApply() {
            String id = create(null);

            assertThat(api.get("/api/jobs/" + id).json().get("retry").isNull()).isTrue();
            assertThat(api.get("/api/runs?job_id=" + id).json().get("items").get(0).get("retry").isNull()).isTrue();
            assertThat(onlyRunOf(id).retry()).isNull();
            assertThat(api.get("/api/jobs/" + create("null")).json().get("retry").isNull()).isTrue();
            assertThat(api.get("/api/jobs/" + create("{}")).json().get("retry").isNull()).isTrue();
        }

        @Test
        void aPartLeftOutIsShownAsNull() {
            JsonNode retry = api.get("/api/jobs/" + create("{\"base_seconds\": 30}")).json().get("retry");

            assertThat(retry.get("base_seconds").asInt()).isEqualTo(30);
            assertThat(retry.get("max_seconds").isNull()).isTrue();
        }

        @Test
        void aBaseAboveTheCapIsRefusedNamingBaseSeconds() {
            JsonNode error = refused(api.post("/api/jobs", LATER + ", \"retry\": {\"base_seconds\": 60, "
                    + "\"max_seconds\": 10}}"), "retry.base_seconds");

            assertThat(error.get("error").asText()).contains("at most retry.max_seconds (10)");
            assertThat(store.allJobs()).isEmpty();
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "{\"base_seconds\": 0}                  | retry.base_seconds | between 1 and 86400",
                "{\"base_seconds\": 86401}              | retry.base_seconds | between 1 and 86400",
                "{\"max_seconds\": 0}                   | retry.max_seconds  | between 1 and 86400",
                "{\"max_seconds\": 99999999999}         | retry.max_seconds  | between 1 and 86400",
                "{\"max_seconds\": \"60\"}              | retry.max_seconds  | whole number",
                "{\"max_seconds\": 1.5}                 | retry.max_seconds  | whole number",
                "{\"base\": 5}                          | retry.base         | unknown field 'retry.base'",
                "{\"base_seconds\": 5, \"jitter\": 1}   | retry.jitter       | unknown field 'retry.jitter'",
                "5                                      | retry              | must be a JSON object",
                "[1, 2]                                 | retry              | must be a JSON object"})
        void badValuesAreRefusedNamingTheField(String retry, String field, String message) {
            JsonNode error = refused(api.post("/api/jobs", LATER + ", \"retry\": " + retry + "}"), field);

            assertThat(error.get("error").asText()).contains(message);
            assertThat(store.allJobs()).isEmpty();
        }

        @Test
        void anIdempotentReplayWithAnotherPolicyIsAConflict() {
            String body = "{\"name\": \"n\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                    + "\"idempotency_key\": \"k-retry\", \"retry\": {\"base_seconds\": 1, \"max_seconds\": 2}";
            assertThat(api.post("/api/jobs", body + "}").status()).isEqualTo(201);

            assertThat(api.post("/api/jobs", body + "}").status()).isEqualTo(200);
            assertThat(api.post("/api/jobs", body.replace("\"max_seconds\": 2", "\"max_seconds\": 3") + "}").status())
                    .isEqualTo(409);
        }
    }

    @Nested
    class Patch {
        @Test
        void aPatchReplacesThePolicyOfTheJobAndItsPendingRun() {
            String id = create("{\"base_seconds\": 1, \"max_seconds\": 2}");

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"retry\": {\"base_seconds\": 10, \"max_seconds\": 600}}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().get("retry").get("base_seconds").asInt()).isEqualTo(10);
            assertThat(r.json().get("retry").get("max_seconds").asInt()).isEqualTo(600);
            assertThat(onlyRunOf(id).retry()).isEqualTo(new RetryOverride(10, 600));
        }

        @Test
        void aPatchWithoutRetryKeepsItAndNullGoesBackToTheDefaults() {
            String id = create("{\"base_seconds\": 1, \"max_seconds\": 2}");

            api.patch("/api/jobs/" + id, "{\"priority\": 2}");
            assertThat(api.get("/api/jobs/" + id).json().get("retry").get("max_seconds").asInt()).isEqualTo(2);

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"retry\": null}");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().get("retry").isNull()).isTrue();
            assertThat(onlyRunOf(id).retry()).isNull();
        }

        @Test
        void keepPendingLeavesThePendingRunsPolicy() {
            String id = create("{\"base_seconds\": 1, \"max_seconds\": 2}");

            Api.Reply r = api.patch("/api/jobs/" + id + "?pending=keep", "{\"retry\": {\"base_seconds\": 7}}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().get("retry").get("base_seconds").asInt()).isEqualTo(7);
            assertThat(onlyRunOf(id).retry()).isEqualTo(new RetryOverride(1, 2));
        }

        @Test
        void badPoliciesAreRefusedAsOnSubmission() {
            String id = create(null);

            refused(api.patch("/api/jobs/" + id, "{\"retry\": {\"base_seconds\": 5, \"max_seconds\": 4}}"),
                    "retry.base_seconds");
            refused(api.patch("/api/jobs/" + id, "{\"retry\": {\"cap\": 5}}"), "retry.cap");
            refused(api.patch("/api/jobs/" + id, "{\"retry\": {\"max_seconds\": 0}}"), "retry.max_seconds");
            assertThat(api.get("/api/jobs/" + id).json().get("retry").isNull()).isTrue();
        }
    }
}
