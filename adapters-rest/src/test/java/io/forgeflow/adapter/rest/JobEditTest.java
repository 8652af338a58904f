package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** PATCH and DELETE /api/jobs/{id} over real HTTP, against the real use cases on in-memory fakes. */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobEditTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));
    static final String RECURRING = "{\"name\": \"every5\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
            + "\"cron_expr\": \"*/5 * * * *\", \"priority\": 2, \"idempotency_key\": \"k-edit\"}";
    static final String LATER = "{\"name\": \"later\", \"executor\": \"shell\", \"payload\": {\"command\": \"a\"}, "
            + "\"run_at\": \"2026-03-01T13:00:00Z\"}";

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

    String create(String body) {
        Api.Reply r = api.post("/api/jobs", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    List<Run> runsOf(String jobId) {
        return store.allRuns().stream().filter(r -> r.jobId().equals(jobId)).toList();
    }

    static JsonNode error(Api.Reply r, int status, String code) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("code").asText()).isEqualTo(code);
        return r.json();
    }

    /** Schedule controls (issue 45): start_at, end_at, max_runs, jitter_seconds, pause_after_failures, pause notes. */
    @Nested
    class ScheduleControls {
        static final String HOURLY = "{\"name\": \"hourly\", \"executor\": \"shell\", \"payload\": "
                + "{\"command\": \"true\"}, \"cron_expr\": \"0 * * * *\"";

        @Test
        void theControlsAreStoredShownAndPreviewed() {
            Api.Reply r = api.post("/api/jobs", HOURLY + ", \"start_at\": \"2026-03-01T15:00:00Z\", "
                    + "\"end_at\": \"2026-03-02T00:00:00Z\", \"max_runs\": 3, \"jitter_seconds\": 120, "
                    + "\"pause_after_failures\": 2}");

            assertThat(r.status()).as(r.body()).isEqualTo(201);
            JsonNode job = r.json();
            assertThat(job.get("start_at").asText()).isEqualTo("2026-03-01T15:00:00Z");
            assertThat(job.get("end_at").asText()).isEqualTo("2026-03-02T00:00:00Z");
            assertThat(job.get("max_runs").asInt()).isEqualTo(3);
            assertThat(job.get("jitter_seconds").asInt()).isEqualTo(120);
            assertThat(job.get("pause_after_failures").asInt()).isEqualTo(2);
            assertThat(job.get("fired_runs").asInt()).isZero();
            assertThat(job.get("paused_note").isNull()).isTrue();
            Instant due = Instant.parse(job.get("next_run_at").asText());
            assertThat(due).as("the first tick at start_at, moved by its jitter")
                    .isBetween(Instant.parse("2026-03-01T15:00:00Z"), Instant.parse("2026-03-01T15:02:00Z"));

            String id = job.get("id").asText();
            Api.Reply preview = api.get("/api/schedules/preview?job_id=" + id + "&count=5");
            assertThat(preview.status()).as(preview.body()).isEqualTo(200);
            JsonNode items = preview.json().get("items");
            assertThat(items).as("max_runs 3: three fires").hasSize(3);
            assertThat(Instant.parse(items.get(0).get("at").asText())).isEqualTo(due);
            for (JsonNode item : items) {
                Instant tick = Instant.parse(item.has("tick") ? item.get("tick").asText() : item.get("at").asText());
                int jitter = item.has("jitter_seconds") ? item.get("jitter_seconds").asInt() : 0;
                assertThat(jitter).isBetween(0, 120);
                assertThat(Instant.parse(item.get("at").asText())).isEqualTo(tick.plusSeconds(jitter));
            }
            assertThat(items.get(2).get("note").asText()).contains("the last run (max_runs 3)");

            Api.Reply window = api.get("/api/schedules/preview?cron_expr=" + java.net.URLEncoder.encode("0 * * * *",
                    java.nio.charset.StandardCharsets.UTF_8) + "&start_at=2026-03-01T22:00:00Z"
                    + "&end_at=2026-03-01T23:30:00Z&count=10");
            assertThat(window.status()).as(window.body()).isEqualTo(200);
            assertThat(window.json().get("items")).extracting(i -> i.get("at").asText())
                    .containsExactly("2026-03-01T22:00:00Z", "2026-03-01T23:00:00Z");
            assertThat(window.json().at("/items/1/note").asText()).isEqualTo("the last tick before end_at");
            assertThat(api.get("/api/schedules/preview?job_id=" + id + "&cron_expr=x").json().get("field").asText())
                    .isEqualTo("cron_expr");
        }

        @Test
        void aPatchChangesOnlyTheControlsItGivesAndNullRemovesOne() {
            String id = create(HOURLY + ", \"max_runs\": 3, \"jitter_seconds\": 10}");

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"max_runs\": null, \"end_at\": \"2026-03-05T00:00:00Z\"}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().get("max_runs").isNull()).isTrue();
            assertThat(r.json().get("end_at").asText()).isEqualTo("2026-03-05T00:00:00Z");
            assertThat(r.json().get("jitter_seconds").asInt()).isEqualTo(10);
            error(api.patch("/api/jobs/" + id, "{\"end_at\": \"2026-03-01T12:10:00Z\"}"), 422, "validation_failed");
        }

        @Test
        void everyControlOutOfRangeIsRefusedNamingIt() {
            String[][] cases = {
                    {"\"max_runs\": 0", "max_runs"},
                    {"\"max_runs\": 1000001", "max_runs"},
                    {"\"max_runs\": 99999999999", "max_runs"},
                    {"\"jitter_seconds\": -1", "jitter_seconds"},
                    {"\"jitter_seconds\": 86401", "jitter_seconds"},
                    {"\"jitter_seconds\": \"5\"", "jitter_seconds"},
                    {"\"pause_after_failures\": 0", "pause_after_failures"},
                    {"\"pause_after_failures\": 1001", "pause_after_failures"},
                    {"\"start_at\": \"tomorrow\"", "start_at"},
                    {"\"end_at\": 5", "end_at"},
                    {"\"start_at\": \"2026-03-02T00:00:00Z\", \"end_at\": \"2026-03-01T00:00:00Z\"", "end_at"},
                    {"\"end_at\": \"2026-03-01T12:30:00Z\"", "end_at"},
                    {"\"fired_runs\": 1", "fired_runs"},
                    {"\"dead_streak\": 1", "dead_streak"},
                    {"\"paused_by\": \"me\"", "paused_by"}};
            for (String[] c : cases) {
                Api.Reply r = api.post("/api/jobs", HOURLY + ", " + c[0] + "}");
                assertThat(r.status()).as(c[0] + ": " + r.body()).isEqualTo(422);
                assertThat(r.json().get("field").asText()).as(c[0]).isEqualTo(c[1]);
            }
            Api.Reply oneOff = api.post("/api/jobs", "{\"name\": \"once\", \"executor\": \"shell\", "
                    + "\"payload\": {\"command\": \"a\"}, \"max_runs\": 2}");
            assertThat(oneOff.status()).as(oneOff.body()).isEqualTo(422);
            assertThat(oneOff.json().get("field").asText()).isEqualTo("max_runs");
            Api.Reply preview = api.get("/api/schedules/preview?cron_expr=%40hourly&max_runs=0");
            assertThat(preview.status()).as(preview.body()).isEqualTo(422);
            assertThat(preview.json().get("field").asText()).isEqualTo("max_runs");
        }

        @Test
        void aBackfillOverLordHowesHalfHourShiftCreatesExactlyThePreviewsTicksOnceAndShowsItsProgress() {
            String id = create("{\"name\": \"lh\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                    + "\"cron_expr\": \"0,30 1,2 * * *\", \"timezone\": \"Australia/Lord_Howe\"}");
            // 2026-04-05 02:00 local (+11) the clocks go back to 01:30 (+10:30): 01:30-01:59 happen twice
            String from = "2026-04-04T12:00:00Z";
            String to = "2026-04-06T12:00:00Z";
            JsonNode preview = api.get("/api/schedules/preview?cron_expr=" + java.net.URLEncoder.encode("0,30 1,2 * * *",
                    java.nio.charset.StandardCharsets.UTF_8) + "&timezone=Australia/Lord_Howe&after=2026-04-04T11:59:59Z"
                    + "&count=20").json().get("items");
            List<String> expected = new java.util.ArrayList<>();
            preview.forEach(i -> {
                if (Instant.parse(i.get("at").asText()).isBefore(Instant.parse(to).plusSeconds(1))) {
                    expected.add(i.get("at").asText());
                }
            });
            assertThat(expected).as("two days of four local times; the repeated 01:30 fires once")
                    .hasSize(8).doesNotContain("2026-04-04T15:00:00Z").contains("2026-04-04T14:30:00Z");

            Api.Reply r = api.post("/api/jobs/" + id + "/backfill", "{\"from\": \"" + from + "\", \"to\": \"" + to
                    + "\", \"overlap\": \"queue_one\"}");

            assertThat(r.status()).as(r.body()).isEqualTo(201);
            assertThat(r.json().get("ticks").asInt()).isEqualTo(8);
            assertThat(r.json().get("created").asInt()).isEqualTo(8);
            assertThat(r.json().get("overlap").asText()).isEqualTo("queue_one");
            assertThat(r.json().at("/runs/pending").asInt()).isEqualTo(8);
            assertThat(r.json().get("done").asBoolean()).isFalse();
            assertThat(runsOf(id)).extracting(run -> run.scheduledFor().toString())
                    .containsExactlyInAnyOrderElementsOf(expected);

            Api.Reply again = api.post("/api/jobs/" + id + "/backfill", "{\"from\": \"" + from + "\", \"to\": \""
                    + to + "\"}");
            assertThat(again.json().get("created").asInt()).as("twice: nothing added").isZero();
            assertThat(again.json().get("skipped").asInt()).isEqualTo(8);
            assertThat(runsOf(id)).hasSize(8);

            String backfill = r.json().get("id").asText();
            Api.Reply progress = api.get("/api/jobs/" + id + "/backfill/" + backfill);
            assertThat(progress.status()).as(progress.body()).isEqualTo(200);
            assertThat(progress.json().at("/runs/pending").asInt()).isEqualTo(8);
            assertThat(api.get("/api/jobs/" + id + "/backfill/nope").status()).isEqualTo(404);
        }

        @Test
        void aBackfillOfMoreThanTenThousandTicksOrABadRangeIsRefusedNamingTheField() {
            String id = create(HOURLY + "}");
            String[][] cases = {
                    {"{\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2027-12-31T00:00:00Z\"}", "to"},
                    {"{\"from\": \"2026-01-02T00:00:00Z\", \"to\": \"2026-01-01T00:00:00Z\"}", "to"},
                    {"{\"to\": \"2026-01-01T00:00:00Z\"}", "from"},
                    {"{\"from\": \"2026-01-01T00:00:00Z\"}", "to"},
                    {"{\"from\": \"yesterday\", \"to\": \"2026-01-01T00:00:00Z\"}", "from"},
                    {"{\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\", \"overlap\": "
                            + "\"cancel_running\"}", "overlap"},
                    {"{\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\", \"only_missing\": "
                            + "false}", "only_missing"},
                    {"{\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\", \"colour\": 1}",
                            "colour"}};
            for (String[] c : cases) {
                Api.Reply r = api.post("/api/jobs/" + id + "/backfill", c[0]);
                assertThat(r.status()).as(c[0] + ": " + r.body()).isEqualTo(422);
                assertThat(r.json().get("field").asText()).as(c[0]).isEqualTo(c[1]);
            }
            Api.Reply tooMany = api.post("/api/jobs/" + id + "/backfill", cases[0][0]);
            assertThat(tooMany.json().get("error").asText()).contains("more than 10000 ticks");
            assertThat(runsOf(id)).as("a refused backfill enqueues nothing").isEmpty();
            Api.Reply exactly = api.post("/api/jobs/" + id + "/backfill", "{\"from\": \"2026-01-01T00:00:00Z\", "
                    + "\"to\": \"2027-02-21T15:00:00Z\"}");
            assertThat(exactly.status()).as(exactly.body()).isEqualTo(201);
            assertThat(exactly.json().get("ticks").asInt()).as("10,000 hourly ticks are allowed").isEqualTo(10_000);
        }

        @Test
        void aPauseTakesANoteThatAResumeClears() {
            String id = create(HOURLY + "}");

            Api.Reply paused = api.post("/api/jobs/" + id + "/pause", "{\"note\": \"vendor outage until Monday\"}");
            assertThat(paused.status()).as(paused.body()).isEqualTo(200);
            assertThat(paused.json().get("status").asText()).isEqualTo("paused");
            assertThat(paused.json().get("paused_note").asText()).isEqualTo("vendor outage until Monday");
            assertThat(paused.json().get("paused_by").isNull()).as("no tokens: nobody to name").isTrue();
            assertThat(api.get("/api/jobs?status=paused").json().at("/items/0/paused_note").asText())
                    .isEqualTo("vendor outage until Monday");

            Api.Reply resumed = api.post("/api/jobs/" + id + "/resume");
            assertThat(resumed.json().get("paused_note").isNull()).isTrue();

            assertThat(api.post("/api/jobs/" + id + "/pause").status()).as("the body stays optional").isEqualTo(200);
            assertThat(error(api.post("/api/jobs/" + id + "/pause", "{\"note\": \"" + "x".repeat(501) + "\"}"), 422,
                    "validation_failed").get("field").asText()).isEqualTo("note");
            assertThat(error(api.post("/api/jobs/" + id + "/pause", "{\"reason\": \"x\"}"), 422,
                    "validation_failed").get("field").asText()).isEqualTo("reason");
        }
    }

    @Nested
    class Patch {
        static final String WEBHOOK = "{\"name\": \"hook\", \"executor\": \"http\", \"payload\": {\"url\": "
                + "\"https://example.test/a\", \"method\": \"POST\", \"headers\": {\"Authorization\": \"Bearer s3cret\", "
                + "\"X-Trace\": \"t1\"}}, \"run_at\": \"2026-03-01T13:00:00Z\"}";

        Object storedHeader(String id, String name) {
            return ((java.util.Map<?, ?>) store.jobs().find(id).orElseThrow()
                    .spec().payload().get("headers")).get(name);
        }

        @Test
        void aPayloadSentBackAsReadKeepsTheMaskedSecret() {
            String id = create(WEBHOOK);
            JsonNode read = api.get("/api/jobs/" + id).json();
            assertThat(read.at("/payload/headers/Authorization").asText()).isEqualTo("***");
            com.fasterxml.jackson.databind.node.ObjectNode payload = (com.fasterxml.jackson.databind.node.ObjectNode)
                    read.get("payload");
            payload.put("url", "https://example.test/b"); // what an edit form does: change a field, send all back

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"payload\": " + payload + "}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().at("/payload/url").asText()).isEqualTo("https://example.test/b");
            assertThat(r.json().at("/payload/headers/Authorization").asText()).isEqualTo("***");
            assertThat(storedHeader(id, "Authorization")).isEqualTo("Bearer s3cret");
            assertThat(storedHeader(id, "X-Trace")).isEqualTo("t1");
        }

        @Test
        void aNewValueReplacesTheSecretAndALeftOutHeaderIsRemoved() {
            String id = create(WEBHOOK);

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"payload\": {\"url\": \"https://example.test/a\", "
                    + "\"method\": \"POST\", \"headers\": {\"Authorization\": \"Bearer n3w\"}}}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(storedHeader(id, "Authorization")).isEqualTo("Bearer n3w");
            assertThat(storedHeader(id, "X-Trace")).isNull();
        }

        @Test
        void theMaskOfASecretTheJobDoesNotHaveIsRefusedNamingTheHeader() {
            String id = create(WEBHOOK);

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"payload\": {\"url\": \"https://example.test/a\", "
                    + "\"headers\": {\"X-Api-Key\": \"***\"}}}");

            assertThat(r.status()).as(r.body()).isBetween(400, 422);
            assertThat(r.json().get("field").asText()).isEqualTo("payload.headers.X-Api-Key");
            assertThat(r.json().get("error").asText()).contains("***");
        }

        @Test
        void changesOnlyTheFieldsGivenAndRecomputesTheNextRunFromNow() {
            String id = create(RECURRING);
            clock.advance(Duration.ofMinutes(1));

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"cron_expr\": \"0 * * * *\", \"name\": \"hourly\", "
                    + "\"timezone\": \"Europe/Berlin\", \"catch_up\": \"once\", \"overlap\": \"skip\"}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode job = r.json();
            assertThat(r.fieldNames()).containsExactlyElementsOf(RestApiTest.JOB_FIELDS);
            assertThat(job.get("name").asText()).isEqualTo("hourly");
            assertThat(job.get("cron_expr").asText()).isEqualTo("0 * * * *");
            assertThat(job.get("timezone").asText()).isEqualTo("Europe/Berlin");
            assertThat(job.get("catch_up").asText()).isEqualTo("once");
            assertThat(job.get("overlap").asText()).isEqualTo("skip");
            assertThat(job.get("priority").asInt()).as("not given: kept").isEqualTo(2);
            assertThat(job.get("idempotency_key").asText()).isEqualTo("k-edit");
            assertThat(job.get("id").asText()).isEqualTo(id);
            assertThat(job.get("next_run_at").asText()).isEqualTo("2026-03-01T13:00:00Z");
            assertThat(job.get("updated_at").asText()).isEqualTo("2026-03-01T12:01:00Z");
            assertThat(RestApiTest.withoutLinks(api.get("/api/jobs/" + id).json())).isEqualTo(job);
        }

        @Test
        void everyRuleOfSubmissionAppliesWith422NamingTheField() {
            String id = create(RECURRING);

            assertThat(error(api.patch("/api/jobs/" + id, "{\"priority\": 0}"), 422, "validation_failed")
                    .get("field").asText()).isEqualTo("priority");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"cron_expr\": \"every day\"}"), 422, "validation_failed")
                    .get("field").asText()).isEqualTo("cron_expr");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"timezone\": \"Mars/Base\"}"), 422, "validation_failed")
                    .get("field").asText()).isEqualTo("timezone");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"priority\": \"high\"}"), 422, "validation_failed")
                    .get("field").asText()).isEqualTo("priority");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"payload\": {\"bad\": 7}}"), 422,
                    "validation_failed").get("field").asText()).isEqualTo("payload.bad");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"payload\": [1]}"), 422,
                    "validation_failed").get("field").asText()).isEqualTo("payload");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"status\": \"paused\"}"), 422, "validation_failed")
                    .get("error").asText()).contains("set by the server");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"priorty\": 3}"), 422, "validation_failed")
                    .get("error").asText()).contains("did you mean priority");
            assertThat(error(api.patch("/api/jobs/" + id, "{\"run_at\": \"2026-04-01T00:00:00Z\"}"), 422,
                    "validation_failed").get("field").asText()).isEqualTo("run_at");
            error(api.patch("/api/jobs/" + id, "[]"), 400, "bad_request");
            error(api.patch("/api/jobs/" + id + "?pending=sometimes", "{}"), 400, "bad_request");
            assertThat(api.get("/api/jobs/" + id).json().get("priority").asInt()).as("a refused PATCH changes nothing")
                    .isEqualTo(2);
        }

        @Test
        void executorAndIdempotencyKeyCannotChange() {
            String id = create(RECURRING);

            JsonNode executor = error(api.patch("/api/jobs/" + id, "{\"executor\": \"http\"}"), 422, "validation_failed");
            assertThat(executor.get("field").asText()).isEqualTo("executor");
            assertThat(executor.get("error").asText()).contains("submit a new job");
            JsonNode key = error(api.patch("/api/jobs/" + id, "{\"idempotency_key\": \"other\"}"), 422,
                    "validation_failed");
            assertThat(key.get("field").asText()).isEqualTo("idempotency_key");
            assertThat(api.patch("/api/jobs/" + id, "{\"executor\": \"shell\", \"idempotency_key\": \"k-edit\"}").status())
                    .as("their own values are no change").isEqualTo(200);
        }

        @Test
        void pendingRunsTakeTheNewPriorityQueueAndPayloadUnlessKeptAndRunningOnesAreUntouched() {
            String id = create(RECURRING);
            Run running = store.runs().insert(Run.pending("0190a6f2-3c4d-7e8f-9a0b-000000000001", id, 3, 2,
                    clock.instant(), "shell", java.util.Map.of("command", "true"), 300, clock.instant()));
            store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30));
            String pending = api.post("/api/jobs/" + id + "/trigger").json().get("id").asText();

            Api.Reply kept = api.patch("/api/jobs/" + id + "?pending=keep", "{\"priority\": 7}");
            assertThat(kept.status()).as(kept.body()).isEqualTo(200);
            assertThat(store.runs().find(pending).orElseThrow().priority()).isEqualTo(2);

            Api.Reply r = api.patch("/api/jobs/" + id, "{\"priority\": 1, \"queue\": \"fast\", "
                    + "\"payload\": {\"command\": \"echo new\"}}");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            Run followed = store.runs().find(pending).orElseThrow();
            assertThat(followed.priority()).isEqualTo(1);
            assertThat(followed.payload()).isEqualTo(java.util.Map.of("command", "echo new"));
            assertThat(api.get("/api/queues/fast").json().get("pending").asLong()).isEqualTo(1);
            Run stillRunning = store.runs().find(running.id()).orElseThrow();
            assertThat(stillRunning.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(stillRunning.priority()).isEqualTo(2);
            assertThat(stillRunning.payload()).isEqualTo(java.util.Map.of("command", "true"));
        }

        @Test
        void aPausedJobStaysPausedAndAOneOffRunMovesWithRunAt() {
            String id = create(RECURRING);
            api.post("/api/jobs/" + id + "/pause");

            JsonNode paused = api.patch("/api/jobs/" + id, "{\"cron_expr\": \"0 0 * * *\"}").json();
            assertThat(paused.get("status").asText()).isEqualTo("paused");
            assertThat(paused.get("next_run_at").isNull()).isTrue();
            assertThat(api.post("/api/jobs/" + id + "/resume").json().get("next_run_at").asText())
                    .isEqualTo("2026-03-02T00:00:00Z");

            String later = create(LATER);
            JsonNode moved = api.patch("/api/jobs/" + later, "{\"run_at\": \"2026-03-01T15:30:00Z\"}").json();
            assertThat(moved.get("next_run_at").asText()).isEqualTo("2026-03-01T15:30:00Z");
            assertThat(runsOf(later)).singleElement().extracting(Run::scheduledFor)
                    .isEqualTo(Instant.parse("2026-03-01T15:30:00Z"));
        }

        @Test
        void aCancelledJobCannotChangeAndAnUnknownOneIsNotFound() {
            String id = create(RECURRING);
            api.post("/api/jobs/" + id + "/cancel");

            error(api.patch("/api/jobs/" + id, "{\"priority\": 3}"), 409, "conflict");
            error(api.patch("/api/jobs/0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b", "{\"priority\": 3}"), 404, "not_found");
        }
    }

    @Nested
    class Delete {
        @Test
        void aJobWithARunningRunIsKeptUnlessItsRunIsCancelled() {
            String id = create(LATER.replace("2026-03-01T13:00:00Z", "2026-03-01T12:00:00Z"));
            Run running = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);

            JsonNode refused = error(api.delete("/api/jobs/" + id), 409, "job_running");
            assertThat(refused.get("error").asText()).contains("cancel_running=true");
            assertThat(api.get("/api/jobs/" + id).json().get("status").asText()).isEqualTo("active");

            Api.Reply deleted = api.delete("/api/jobs/" + id + "?cancel_running=true");
            assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
            assertThat(deleted.json().get("status").asText()).isEqualTo("deleted");
            assertThat(store.runs().find(running.id()).orElseThrow().cancelRequested()).isTrue();
        }

        @Test
        void pendingRunsAreCancelledTheJobLeavesTheListsAndItsRunsStillNameIt() {
            String id = create(RECURRING);
            String done = api.post("/api/jobs/" + id + "/trigger").json().get("id").asText();
            Run claimed = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
            store.queue().acknowledge(List.of(new io.forgeflow.domain.port.Acknowledgement(
                    new io.forgeflow.domain.port.RunFence(claimed.id(), "w1", 1),
                    io.forgeflow.domain.run.AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, Duration.ZERO, "ok", null)));
            String pending = api.post("/api/jobs/" + id + "/trigger").json().get("id").asText();

            Api.Reply r = api.delete("/api/jobs/" + id);

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().get("status").asText()).isEqualTo("deleted");
            assertThat(r.json().get("next_run_at").isNull()).isTrue();
            assertThat(api.get("/api/runs/" + pending).json().get("status").asText()).isEqualTo("cancelled");
            assertThat(api.get("/api/jobs").json().get("items")).isEmpty();
            assertThat(api.get("/api/jobs?status=deleted").json().get("items")).hasSize(1);
            JsonNode run = api.get("/api/runs/" + done).json();
            assertThat(run.get("status").asText()).isEqualTo("succeeded");
            assertThat(api.get("/api/jobs/" + run.get("job_id").asText()).json().get("status").asText())
                    .as("its job_id resolves to the tombstone").isEqualTo("deleted");
            error(api.post("/api/jobs/" + id + "/trigger"), 409, "conflict");
            error(api.patch("/api/jobs/" + id, "{\"priority\": 3}"), 409, "conflict");
            assertThat(api.delete("/api/jobs/" + id).status()).as("deleting twice is harmless").isEqualTo(200);
        }

        @Test
        void purgeRemovesTheJobAndItsRuns() {
            String id = create(RECURRING);
            String run = api.post("/api/jobs/" + id + "/trigger").json().get("id").asText();

            Api.Reply r = api.delete("/api/jobs/" + id + "?purge=true");

            assertThat(r.status()).isEqualTo(204);
            error(api.get("/api/jobs/" + id), 404, "not_found");
            error(api.get("/api/runs/" + run), 404, "not_found");
            error(api.delete("/api/jobs/" + id + "?purge=maybe"), 400, "bad_request");
        }
    }
}
