package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Labels on jobs and runs, and the filters of GET /api/jobs and GET /api/runs, over real HTTP on the fakes. */
@ExtendWith(DropwizardExtensionsSupport.class)
class LabelsAndFiltersTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    Api api;
    InMemoryStore store;
    MutableClock clock;

    @BeforeEach
    void reset() {
        RestTestApplication app = APP.getApplication();
        store = app.store;
        clock = app.clock;
        store.clear();
        clock.set(Instant.parse("2026-03-01T12:00:00Z"));
        api = new Api(APP.getLocalPort());
    }

    static String job(String name, String queue, String labels, String runAt) {
        return "{\"name\": \"" + name + "\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"queue\": \"" + queue + "\"" + (labels == null ? "" : ", \"labels\": " + labels)
                + (runAt == null ? "" : ", \"run_at\": \"" + runAt + "\"") + "}";
    }

    String create(String body) {
        clock.advance(Duration.ofSeconds(1));
        Api.Reply r = api.post("/api/jobs", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    List<String> ids(String path) {
        Api.Reply r = api.get(path);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        r.json().get("items").forEach(item -> ids.add(item.get("id").asText()));
        return ids;
    }

    String runOf(String jobId) {
        return ids("/api/runs?job_id=" + jobId).get(0);
    }

    static JsonNode error(Api.Reply r, int status, String code, String field) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("code").asText()).isEqualTo(code);
        assertThat(r.json().get("field").asText()).isEqualTo(field);
        return r.json();
    }

    @Nested
    class Labels {
        @Test
        void aJobShowsItsLabelsAndItsRunsCarryThem() {
            Api.Reply created = api.post("/api/jobs", job("report", "reports", "{\"team\": \"billing\", \"env\": \"prod\"}",
                    null));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            String id = created.json().get("id").asText();
            Map<?, ?> labels = Api.JSON.convertValue(created.json().get("labels"), Map.class);

            assertThat(labels).isEqualTo(Map.of("team", "billing", "env", "prod"));
            assertThat(api.get("/api/jobs/" + id).json().get("labels")).isEqualTo(created.json().get("labels"));
            String runId = runOf(id);
            assertThat(api.get("/api/runs/" + runId).json().get("labels")).isEqualTo(created.json().get("labels"));
            assertThat(api.get("/api/runs").json().get("items").get(0).get("labels"))
                    .isEqualTo(created.json().get("labels"));
            Api.Reply triggered = api.post("/api/jobs/" + id + "/trigger");
            assertThat(triggered.json().get("labels")).as(triggered.body()).isEqualTo(created.json().get("labels"));
        }

        @Test
        void noLabelsShowAsAnEmptyObject() {
            String id = create(job("plain", "default", null, null));

            assertThat(api.get("/api/jobs/" + id).json().get("labels").isObject()).isTrue();
            assertThat(api.get("/api/jobs/" + id).json().get("labels")).isEmpty();
            assertThat(api.get("/api/runs/" + runOf(id)).json().get("labels")).isEmpty();
            assertThat(api.get("/api/jobs/" + create(job("nulled", "default", "null", null))).json().get("labels"))
                    .isEmpty();
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
                `["a"]`                   | labels      | labels must be a JSON object of strings
                `"team=billing"`          | labels      | labels must be a JSON object of strings
                `{"Team": "billing"}`     | labels      | labels has a bad key 'Team': keys are 1 to 63
                `{"": "billing"}`         | labels      | labels has a bad key '': keys are 1 to 63
                `{"team": 5}`             | labels.team | labels.team must be a string
                `{"team": null}`          | labels.team | labels.team must be a string
                `{"team": {"a": "b"}}`    | labels.team | labels.team must be a string
                `{"team": "a\\nb"}`       | labels.team | labels.team must not contain control characters
                """)
        void aBadLabelIsA422NamingLabelsOrTheKeyAndNothingIsStored(String labels, String field, String message) {
            Api.Reply r = api.post("/api/jobs", job("bad", "default", labels, null));

            assertThat(error(r, 422, "validation_failed", field).get("error").asText()).contains(message);
            assertThat(store.allJobs()).isEmpty();
        }

        @Test
        void atMostTwentyLabelsOfAtMost200CharactersAndKeysOfAtMost63() {
            StringBuilder twenty = new StringBuilder("{");
            for (int i = 0; i < 20; i++) {
                twenty.append(i == 0 ? "" : ", ").append("\"k").append(i).append("\": \"v\"");
            }
            assertThat(api.post("/api/jobs", job("ok", "default", twenty + "}", null)).status()).isEqualTo(201);
            error(api.post("/api/jobs", job("no", "default", twenty + ", \"k20\": \"v\"}", null)), 422,
                    "validation_failed", "labels");
            assertThat(api.post("/api/jobs", job("ok", "default", "{\"" + "k".repeat(63) + "\": \"" + "v".repeat(200)
                    + "\"}", null)).status()).isEqualTo(201);
            error(api.post("/api/jobs", job("no", "default", "{\"" + "k".repeat(64) + "\": \"v\"}", null)), 422,
                    "validation_failed", "labels");
            error(api.post("/api/jobs", job("no", "default", "{\"team\": \"" + "v".repeat(201) + "\"}", null)), 422,
                    "validation_failed", "labels.team");
        }

        @Test
        void aPatchReplacesTheLabelsAndPendingRunsFollowUnlessKept() {
            String id = create(job("report", "reports", "{\"team\": \"billing\"}", "2026-03-02T00:00:00Z"));
            String runId = runOf(id);

            Api.Reply patched = api.patch("/api/jobs/" + id, "{\"labels\": {\"team\": \"finance\", \"env\": \"prod\"}}");
            assertThat(patched.status()).as(patched.body()).isEqualTo(200);
            assertThat(Api.JSON.convertValue(patched.json().get("labels"), Map.class))
                    .isEqualTo(Map.of("team", "finance", "env", "prod"));
            assertThat(Api.JSON.convertValue(api.get("/api/runs/" + runId).json().get("labels"), Map.class))
                    .isEqualTo(Map.of("team", "finance", "env", "prod"));

            assertThat(api.patch("/api/jobs/" + id + "?pending=keep", "{\"labels\": null}").json().get("labels"))
                    .isEmpty();
            assertThat(api.get("/api/runs/" + runId).json().get("labels")).hasSize(2);

            error(api.patch("/api/jobs/" + id, "{\"labels\": {\"team\": 1}}"), 422, "validation_failed", "labels.team");
            error(api.patch("/api/jobs/" + id, "{\"labels\": []}"), 422, "validation_failed", "labels");
            assertThat(api.get("/api/jobs/" + id).json().get("labels")).as("a refused PATCH changes nothing").isEmpty();
        }

        @Test
        void anIdempotentReplayMustRepeatTheLabels() {
            String body = "{\"name\": \"once\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                    + "\"idempotency_key\": \"k-1\", \"labels\": {\"team\": \"billing\"}}";
            assertThat(api.post("/api/jobs", body).status()).isEqualTo(201);
            assertThat(api.post("/api/jobs", body).status()).isEqualTo(200);
            Api.Reply other = api.post("/api/jobs", body.replace("billing", "ops"));
            assertThat(other.status()).as(other.body()).isEqualTo(409);
        }
    }

    @Nested
    class Filters {
        String report;
        String backup;
        String sync;

        @BeforeEach
        void threeJobs() {
            report = create(job("nightly-report", "reports", "{\"team\": \"billing\", \"env\": \"prod\"}",
                    "2026-03-02T00:00:00Z"));
            backup = create(job("nightly-backup", "default", "{\"team\": \"ops\", \"env\": \"prod\"}",
                    "2026-03-03T00:00:00Z"));
            sync = create(job("hourly-sync", "reports", "{\"team\": \"billing\"}", "2026-03-04T00:00:00Z"));
            api.post("/api/jobs/" + sync + "/pause");
        }

        @Test
        void jobsByStatusQueueEveryLabelAndNamePrefix() {
            assertThat(ids("/api/jobs?label=team:billing")).containsExactly(sync, report);
            assertThat(ids("/api/jobs?label=team:billing&label=env:prod")).containsExactly(report);
            assertThat(ids("/api/jobs?label=env:prod&label=")).containsExactly(backup, report);
            assertThat(ids("/api/jobs?queue=reports")).containsExactly(sync, report);
            assertThat(ids("/api/jobs?queue=reports&status=active")).containsExactly(report);
            assertThat(ids("/api/jobs?name_prefix=nightly-")).containsExactly(backup, report);
            assertThat(ids("/api/jobs?name_prefix=nightly-r&queue=reports&label=env:prod")).containsExactly(report);
            assertThat(ids("/api/jobs?name_prefix=nightly_")).isEmpty();
            assertThat(ids("/api/jobs?label=team:billing%3Aeu")).isEmpty();
            assertThat(ids("/api/jobs?status=paused&label=team:billing")).containsExactly(sync);
        }

        @Test
        void runsByJobStatusQueueLabelAndTimes() {
            String reportRun = runOf(report);
            String backupRun = runOf(backup);
            String syncRun = runOf(sync);
            String again = api.post("/api/jobs/" + backup + "/trigger").json().get("id").asText();

            assertThat(ids("/api/runs?label=env:prod")).containsExactly(again, backupRun, reportRun);
            assertThat(ids("/api/runs?label=env:prod&label=team:ops&status=pending")).containsExactly(again, backupRun);
            assertThat(ids("/api/runs?queue=reports")).containsExactly(syncRun, reportRun);
            assertThat(ids("/api/runs?queue=reports&status=cancelled")).as("pausing cancelled its run")
                    .containsExactly(syncRun);
            assertThat(ids("/api/runs?job_id=" + backup + "&label=team:ops")).containsExactly(again, backupRun);
            assertThat(ids("/api/runs?scheduled_after=2026-03-02T00:00:00Z")).containsExactly(syncRun, backupRun);
            assertThat(ids("/api/runs?scheduled_before=2026-03-03T00:00:00Z")).containsExactly(again, reportRun);
            assertThat(ids("/api/runs?scheduled_after=2026-03-01T23:00:00Z&scheduled_before=2026-03-03T00:00:01%2B00:00"))
                    .containsExactly(backupRun, reportRun);
            assertThat(ids("/api/runs?finished_after=2026-03-01T00:00:00Z")).containsExactly(syncRun);
            assertThat(ids("/api/runs?finished_after=2026-03-01T12:00:03Z")).as("exclusive").isEmpty();
        }

        @Test
        void pagesOfAFilteredListChainByCursor() {
            Api.Reply first = api.get("/api/jobs?label=team:billing&limit=1");
            String cursor = first.json().get("next_cursor").asText();
            Api.Reply second = api.get("/api/jobs?label=team:billing&limit=1&cursor=" + cursor);

            assertThat(first.json().get("items").get(0).get("id").asText()).isEqualTo(sync);
            assertThat(second.json().get("items").get(0).get("id").asText()).isEqualTo(report);
            assertThat(second.json().get("next_cursor").isNull()).isTrue();

            Api.Reply runs = api.get("/api/runs?label=env:prod&limit=1");
            Api.Reply more = api.get("/api/runs?label=env:prod&limit=1&cursor="
                    + runs.json().get("next_cursor").asText());
            assertThat(more.json().get("items").get(0).get("id").asText()).isEqualTo(runOf(report));
            assertThat(more.json().get("next_cursor").isNull()).isTrue();
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', textBlock = """
                /api/jobs?label=team               | label            | label must be key:value
                /api/jobs?label=Team:billing       | label            | label must be key:value
                /api/jobs?label=:billing           | label            | label must be key:value
                /api/jobs?label=a:1&label=a:2      | label            | gives the key 'a' twice
                /api/jobs?queue=no%20spaces        | queue            | is not a valid queue
                /api/jobs?name_prefix=a%0Ab        | name_prefix      | name_prefix must be 1 to 200 characters
                /api/runs?label=team               | label            | label must be key:value
                /api/runs?queue=a/b                | queue            | is not a valid queue
                /api/runs?scheduled_after=yesterday | scheduled_after | scheduled_after must be an RFC 3339 time
                /api/runs?scheduled_before=2026-13-01T00:00:00Z | scheduled_before | scheduled_before must be an RFC 3339 time
                /api/runs?finished_after=2026-03-01 | finished_after  | finished_after must be an RFC 3339 time
                """)
        void aBadFilterValueIsA422NamingTheParameter(String path, String field, String message) {
            assertThat(error(api.get(path), 422, "validation_failed", field).get("error").asText()).contains(message);
        }

        @Test
        void malformedQueriesStay400AsBefore() {
            error(api.get("/api/jobs?status=sleeping"), 400, "bad_request", "status");
            error(api.get("/api/runs?queue=a&queue=b"), 400, "bad_request", "queue");
            error(api.get("/api/jobs?labels=team:billing"), 400, "bad_request", "labels");
            error(api.get("/api/runs?name_prefix=x"), 400, "bad_request", "name_prefix");
        }
    }
}
