package io.forgeflow.adapter.rest;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Every route of API.md over real HTTP, against the real use cases on in-memory fakes. */
@ExtendWith(DropwizardExtensionsSupport.class)
class RestApiTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    static final List<String> JOB_FIELDS = List.of("id", "name", "executor", "payload", "payload_truncated", "cron_expr", "run_at",
            "timezone", "priority", "max_attempts", "timeout_seconds", "catch_up", "idempotency_key", "queue",
            "concurrency_key", "max_concurrent", "overlap", "labels", "status", "next_run_at", "created_at",
            "updated_at", "submitted_via", "unique_key", "waiting_for", "trace_id", "retry", "start_at", "end_at",
            "max_runs", "jitter_seconds", "pause_after_failures", "fired_runs", "dead_streak", "paused_note", "paused_by", "notify",
            "depends_on", "on_parent_failure", "batch_id", "sequence_key", "on_dead", "debounce", "throttle",
            "tenant");
    /** A job read alone ({@code GET /api/jobs/{id}}) also shows its workflow's parents and children. */
    static final List<String> JOB_DETAIL_FIELDS = java.util.stream.Stream.concat(JOB_FIELDS.stream(),
            java.util.stream.Stream.of("parents", "children")).toList();

    /** A job read alone, without the fields only that answer has: what a creation answered. */
    static com.fasterxml.jackson.databind.JsonNode withoutLinks(com.fasterxml.jackson.databind.JsonNode detail) {
        com.fasterxml.jackson.databind.node.ObjectNode copy = ((com.fasterxml.jackson.databind.node.ObjectNode) detail).deepCopy();
        assertThat(copy.remove("parents")).isNotNull();
        assertThat(copy.remove("children")).isNotNull();
        return copy;
    }
    static final List<String> RUN_FIELDS = List.of("id", "job_id", "status", "attempt", "max_attempts", "priority",
            "scheduled_for", "started_at", "finished_at", "worker_id", "lease_expires_at", "output", "output_truncated", "error",
            "cancel_requested", "waiting_for", "trace_id", "trace_url", "retry", "labels", "snoozes", "tenant");
    static final String START = "2026-03-01T12:00:00Z";
    static final String ONE_OFF = "{\"name\": \"report\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo hi\"}}";
    static final String RECURRING = "{\"name\": \"every5\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
            + "\"cron_expr\": \"*/5 * * * *\", \"timezone\": \"Europe/Berlin\", \"priority\": 2, \"catch_up\": \"once\"}";

    Api api;
    RestTestApplication app;
    InMemoryStore store;
    MutableClock clock;

    @BeforeEach
    void reset() {
        app = APP.getApplication();
        store = app.store;
        clock = app.clock;
        store.clear();
        clock.set(Instant.parse(START));
        app.signal.reset();
        app.notReadyBecause.set(null);
        api = new Api(APP.getLocalPort());
    }

    String create(String body) {
        Api.Reply r = api.post("/api/jobs", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    Run onlyRunOf(String jobId) {
        List<Run> runs = store.allRuns().stream().filter(r -> r.jobId().equals(jobId)).toList();
        assertThat(runs).hasSize(1);
        return runs.get(0);
    }

    static RunFence fence(Run run) {
        return new RunFence(run.id(), run.workerId(), run.attempt());
    }

    @Nested
    class Jobs {
        @Test
        void aOneOffJobIsCreatedWith201EveryFieldAndItsRunDueNow() {
            Api.Reply r = api.post("/api/jobs", ONE_OFF);

            assertThat(r.status()).isEqualTo(201);
            assertThat(r.header("Content-Type")).startsWith("application/json");
            JsonNode job = r.json();
            assertThat(r.fieldNames()).containsExactlyElementsOf(JOB_FIELDS);
            String id = job.get("id").asText();
            assertThat(r.header("Location")).endsWith("/api/jobs/" + id);
            assertThat(job.get("name").asText()).isEqualTo("report");
            assertThat(job.get("payload").get("command").asText()).isEqualTo("echo hi");
            assertThat(job.get("cron_expr").isNull()).isTrue();
            assertThat(job.get("run_at").isNull()).isTrue();
            assertThat(job.get("idempotency_key").isNull()).isTrue();
            assertThat(job.get("timezone").asText()).isEqualTo("UTC");
            assertThat(job.get("priority").asInt()).isEqualTo(5);
            assertThat(job.get("max_attempts").asInt()).isEqualTo(3);
            assertThat(job.get("timeout_seconds").asInt()).isEqualTo(300);
            assertThat(job.get("catch_up").asText()).isEqualTo("skip");
            assertThat(job.get("queue").asText()).isEqualTo("default");
            assertThat(job.get("concurrency_key").isNull()).isTrue();
            assertThat(job.get("max_concurrent").isNull()).isTrue();
            assertThat(job.get("overlap").asText()).isEqualTo("allow");
            assertThat(job.get("status").asText()).isEqualTo("active");
            assertThat(job.get("next_run_at").asText()).isEqualTo(START);
            assertThat(job.get("created_at").asText()).isEqualTo(START);
            assertThat(job.get("updated_at").asText()).isEqualTo(START);
            assertThat(job.get("submitted_via").asText()).isEqualTo("rest");
            assertThat(app.signal.count()).isEqualTo(1);

            Api.Reply runs = api.get("/api/runs?job_id=" + id);
            assertThat(runs.status()).isEqualTo(200);
            JsonNode run = runs.json().get("items").get(0);
            assertThat(runs.json().get("items")).hasSize(1);
            assertThat(runs.json().get("next_cursor").isNull()).isTrue();
            assertThat(Api.JSON.convertValue(run, java.util.Map.class).keySet()).containsExactlyElementsOf(RUN_FIELDS);
            assertThat(run.get("status").asText()).isEqualTo("pending");
            assertThat(run.get("scheduled_for").asText()).isEqualTo(START);
            assertThat(run.get("attempt").asInt()).isZero();
            assertThat(run.get("worker_id").isNull()).isTrue();
        }

        @Test
        void aJobWithoutParentsIsAnsweredWithoutAskingForItsWorkflow() {
            int before = app.workflows.workflowQueries.get();

            Api.Reply r = api.post("/api/jobs", ONE_OFF);

            assertThat(r.status()).isEqualTo(201);
            assertThat(r.json().get("depends_on")).isEmpty();
            assertThat(r.json().get("on_parent_failure").isNull()).isTrue();
            assertThat(r.json().get("batch_id").isNull()).isTrue();
            // a new job without parents has no workflow yet: the answer costs no second query (the REST profile
            // showed that query in a quarter of a submission's samples)
            assertThat(app.workflows.workflowQueries.get()).isEqualTo(before);
        }

        @Test
        void aRecurringJobGetsItsNextTickAndNoRunYet() {
            JsonNode job = api.post("/api/jobs", RECURRING).json();

            assertThat(job.get("cron_expr").asText()).isEqualTo("*/5 * * * *");
            assertThat(job.get("timezone").asText()).isEqualTo("Europe/Berlin");
            assertThat(job.get("priority").asInt()).isEqualTo(2);
            assertThat(job.get("catch_up").asText()).isEqualTo("once");
            assertThat(job.get("next_run_at").asText()).isEqualTo("2026-03-01T12:05:00Z");
            assertThat(store.allRuns()).isEmpty();
        }

        @Test
        void queueConcurrencyKeyLimitAndOverlapAreStoredAndShown() {
            Api.Reply r = api.post("/api/jobs", "{\"name\": \"invoice\", \"executor\": \"shell\", \"cron_expr\": "
                    + "\"@hourly\", \"queue\": \"billing.eu\", \"concurrency_key\": \"ledger\", \"max_concurrent\": 2, "
                    + "\"overlap\": \"skip\"}");

            assertThat(r.status()).as(r.body()).isEqualTo(201);
            JsonNode job = r.json();
            assertThat(job.get("queue").asText()).isEqualTo("billing.eu");
            assertThat(job.get("concurrency_key").asText()).isEqualTo("ledger");
            assertThat(job.get("max_concurrent").asInt()).isEqualTo(2);
            assertThat(job.get("overlap").asText()).isEqualTo("skip");
            assertThat(withoutLinks(api.get("/api/jobs/" + job.get("id").asText()).json())).isEqualTo(job);
            assertThat(store.allJobs()).singleElement().satisfies(j -> {
                assertThat(j.spec().queue()).isEqualTo("billing.eu");
                assertThat(j.spec().effectiveConcurrencyKey(j.id())).isEqualTo("ledger");
            });
        }

        @Test
        void maxConcurrentAloneIsShownWithoutAKeyAndARunNowJobLandsInItsQueue() {
            Api.Reply r = api.post("/api/jobs", "{\"name\": \"solo\", \"executor\": \"shell\", \"queue\": \"reports\", "
                    + "\"max_concurrent\": 1}");

            assertThat(r.status()).as(r.body()).isEqualTo(201);
            assertThat(r.json().get("concurrency_key").isNull()).as("the job's own key is not shown").isTrue();
            assertThat(r.json().get("max_concurrent").asInt()).isEqualTo(1);
            JsonNode reports = api.get("/api/queues/reports").json();
            assertThat(reports.get("pending").asLong()).isEqualTo(1);
            assertThat(reports.get("due").asLong()).isEqualTo(1);
        }

        @Test
        void anIdempotentReplayMustRepeatTheQueueFields() {
            String body = "{\"name\": \"n\", \"executor\": \"shell\", \"idempotency_key\": \"q-1\", \"queue\": \"reports\"}";
            assertThat(api.post("/api/jobs", body).status()).isEqualTo(201);

            assertThat(api.post("/api/jobs", body).status()).isEqualTo(200);
            Api.Reply other = api.post("/api/jobs", body.replace("reports", "webhooks"));
            assertThat(other.status()).as(other.body()).isEqualTo(409);
            assertThat(other.json().get("field").asText()).isEqualTo("idempotency_key");
        }

        @Test
        void runAtWithAnOffsetIsStoredAndShownInUtc() {
            JsonNode job = api.post("/api/jobs", "{\"name\": \"later\", \"executor\": \"http\", \"payload\": {\"url\": "
                    + "\"http://example.com\"}, \"run_at\": \"2026-03-02T08:00:00+01:00\"}").json();

            assertThat(job.get("run_at").asText()).isEqualTo("2026-03-02T07:00:00Z");
            assertThat(job.get("next_run_at").asText()).isEqualTo("2026-03-02T07:00:00Z");
            assertThat(app.signal.count()).isZero();
        }

        @Test
        void aJobIsReadBackAsItWasCreated() {
            Api.Reply created = api.post("/api/jobs", RECURRING);
            String id = created.json().get("id").asText();

            Api.Reply read = api.get("/api/jobs/" + id);

            assertThat(read.status()).isEqualTo(200);
            assertThat(read.json().fieldNames()).toIterable().containsExactlyElementsOf(JOB_DETAIL_FIELDS);
            assertThat(withoutLinks(read.json())).isEqualTo(created.json());
        }

        @Test
        void listsAreNewestFirstAndPagedWithCursors() {
            String a = create(ONE_OFF);
            String b = create(RECURRING);
            String c = create(ONE_OFF);

            JsonNode first = api.get("/api/jobs?limit=2").json();
            assertThat(first.get("items")).extracting(j -> j.get("id").asText()).containsExactly(c, b);
            assertThat(first.get("items")).allSatisfy(j -> {
                assertThat(j.fieldNames()).toIterable().containsExactlyElementsOf(JOB_FIELDS);
                assertThat(j.get("payload_truncated").asBoolean()).isFalse();
                assertThat(j.get("payload").isObject()).isTrue();
            });
            String cursor = first.get("next_cursor").asText();
            JsonNode second = api.get("/api/jobs?limit=2&cursor=" + cursor).json();
            assertThat(second.get("items")).extracting(j -> j.get("id").asText()).containsExactly(a);
            assertThat(second.get("next_cursor").isNull()).isTrue();

            JsonNode all = api.get("/api/jobs?status=&limit=&cursor=").json();
            assertThat(all.get("items")).hasSize(3);
            assertThat(all.get("next_cursor").isNull()).isTrue();

            api.post("/api/jobs/" + b + "/pause");
            JsonNode paused = api.get("/api/jobs?status=paused").json();
            assertThat(paused.get("items")).extracting(j -> j.get("id").asText()).containsExactly(b);
        }

        @Test
        void pauseResumeAndCancelAnswerTheJob() {
            String id = create("{\"name\": \"later\", \"executor\": \"shell\", \"run_at\": \"2026-03-05T00:00:00Z\"}");
            clock.advance(Duration.ofMinutes(1));

            Api.Reply paused = api.post("/api/jobs/" + id + "/pause");
            assertThat(paused.status()).isEqualTo(200);
            assertThat(paused.fieldNames()).containsExactlyElementsOf(JOB_FIELDS);
            assertThat(paused.json().get("status").asText()).isEqualTo("paused");
            assertThat(paused.json().get("next_run_at").isNull()).isTrue();
            assertThat(paused.json().get("updated_at").asText()).isEqualTo("2026-03-01T12:01:00Z");
            assertThat(api.get("/api/runs?job_id=" + id + "&status=cancelled").json().get("items")).hasSize(1);

            Api.Reply resumed = api.post("/api/jobs/" + id + "/resume");
            assertThat(resumed.status()).isEqualTo(200);
            assertThat(resumed.json().get("status").asText()).isEqualTo("active");
            assertThat(api.get("/api/runs?job_id=" + id + "&status=pending").json().get("items")).hasSize(1);

            Api.Reply cancelled = api.post("/api/jobs/" + id + "/cancel");
            assertThat(cancelled.status()).isEqualTo(200);
            assertThat(cancelled.json().get("status").asText()).isEqualTo("cancelled");
            assertThat(api.post("/api/jobs/" + id + "/cancel").status()).isEqualTo(200);
            assertThat(api.get("/api/runs?job_id=" + id + "&status=pending").json().get("items")).isEmpty();
        }

        @Test
        void triggerEnqueuesARunNowWith201() {
            String id = create(RECURRING);

            Api.Reply r = api.post("/api/jobs/" + id + "/trigger");

            assertThat(r.status()).isEqualTo(201);
            assertThat(r.fieldNames()).containsExactlyElementsOf(RUN_FIELDS);
            String runId = r.json().get("id").asText();
            assertThat(r.header("Location")).endsWith("/api/runs/" + runId);
            assertThat(r.json().get("job_id").asText()).isEqualTo(id);
            assertThat(r.json().get("status").asText()).isEqualTo("pending");
            assertThat(r.json().get("priority").asInt()).isEqualTo(2);
            assertThat(r.json().get("scheduled_for").asText()).isEqualTo(START);
            assertThat(app.signal.count()).isEqualTo(1);
        }
    }

    @Nested
    class UniqueKeys {
        static final String SYNC = "{\"name\": \"sync\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"unique_key\": \"sync-customer-42\"";

        @Test
        void aSecondSubmissionWhileTheFirstIsLiveIs409NamingTheLiveJob() {
            String first = create(SYNC + "}");

            Api.Reply again = api.post("/api/jobs", SYNC + "}");

            assertThat(again.status()).isEqualTo(409);
            assertThat(again.json().get("code").asText()).isEqualTo("unique_conflict");
            assertThat(again.json().get("job_id").asText()).isEqualTo(first);
            assertThat(again.json().get("field").asText()).isEqualTo("unique_key");
            assertThat(again.json().get("error").asText()).contains("sync-customer-42").contains("return_existing");
            assertThat(api.get("/api/jobs/" + first).json().get("unique_key").asText()).isEqualTo("sync-customer-42");
        }

        @Test
        void returnExistingAnswers200WithTheLiveJob() {
            String first = create(SYNC + "}");

            Api.Reply again = api.post("/api/jobs", SYNC + ", \"unique_on_conflict\": \"return_existing\"}");

            assertThat(again.status()).as(again.body()).isEqualTo(200);
            assertThat(again.json().get("id").asText()).isEqualTo(first);
        }

        @Test
        void theKeyIsFreeOnceTheRunEndsAndOtherQueuesNeverShareIt() {
            String first = create(SYNC + "}");
            Run running = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
            assertThat(api.post("/api/jobs", SYNC + "}").status()).isEqualTo(409);
            store.queue().acknowledge(List.of(new Acknowledgement(fence(running), AttemptOutcome.SUCCEEDED,
                    RunStatus.SUCCEEDED, null, "", null)));

            String second = create(SYNC + "}");

            assertThat(second).isNotEqualTo(first);
            create(SYNC + ", \"queue\": \"other\"}");
        }

        @Test
        void badUniqueFieldsAre422NamingTheField() {
            Api.Reply blank = api.post("/api/jobs", SYNC.replace("sync-customer-42", " ") + "}");
            assertThat(blank.status()).isEqualTo(422);
            assertThat(blank.json().get("field").asText()).isEqualTo("unique_key");
            Api.Reply recurring = api.post("/api/jobs", SYNC + ", \"cron_expr\": \"* * * * *\"}");
            assertThat(recurring.status()).isEqualTo(422);
            assertThat(recurring.json().get("field").asText()).isEqualTo("unique_key");
            Api.Reply policy = api.post("/api/jobs", SYNC + ", \"unique_on_conflict\": \"merge\"}");
            assertThat(policy.status()).isEqualTo(422);
            assertThat(policy.json().get("field").asText()).isEqualTo("unique_on_conflict");
            Api.Reply alone = api.post("/api/jobs", ONE_OFF.replace("}}", "}, \"unique_on_conflict\": \"reject\"}"));
            assertThat(alone.status()).isEqualTo(422);
            assertThat(alone.json().get("field").asText()).isEqualTo("unique_on_conflict");
        }

        @Test
        void aSequenceIsStoredWithBlockAsDefaultAndBadValuesAre422NamingTheField() {
            Api.Reply ok = api.post("/api/jobs", ONE_OFF.replace("}}", "}, \"sequence_key\": \"order-42\"}"));
            assertThat(ok.status()).isEqualTo(201);
            assertThat(ok.json().get("sequence_key").asText()).isEqualTo("order-42");
            assertThat(ok.json().get("on_dead").asText()).isEqualTo("block");
            assertThat(api.post("/api/jobs", ONE_OFF).json().get("sequence_key").isNull()).isTrue();
            for (String[] bad : new String[][] {
                    {"\"sequence_key\": \" \"", "sequence_key"},
                    {"\"sequence_key\": \"k\", \"on_dead\": \"skip\"", "on_dead"},
                    {"\"on_dead\": \"block\"", "on_dead"},
                    {"\"sequence_key\": \"k\", \"cron_expr\": \"* * * * *\"", "sequence_key"},
                    {"\"sequence_key\": 7", "sequence_key"}}) {
                Api.Reply r = api.post("/api/jobs", ONE_OFF.replace("}}", "}, " + bad[0] + "}"));
                assertThat(r.status()).as(bad[0]).isEqualTo(422);
                assertThat(r.json().get("field").asText()).as(bad[0]).isEqualTo(bad[1]);
            }
        }
    }

    @Nested
    class BodiesAndKeys {
        @Test
        void curlsFormEncodedDefaultIsReadAsJson() {
            Api.Reply r = api.post("/api/jobs", ONE_OFF, "application/x-www-form-urlencoded");

            assertThat(r.status()).as(r.body()).isEqualTo(201);
            assertThat(r.json().get("payload").get("command").asText()).isEqualTo("echo hi");
        }

        @Test
        void aBodyWithoutContentTypeIsReadAsJson() {
            assertThat(api.post("/api/jobs", ONE_OFF, null).status()).isEqualTo(201);
        }

        @Test
        void jsonWithACharsetOrAJsonSuffixTypeIsAccepted() {
            assertThat(api.post("/api/jobs", ONE_OFF, "application/json; charset=utf-8").status()).isEqualTo(201);
            assertThat(api.post("/api/jobs", ONE_OFF, "application/vnd.forgeflow+json").status()).isEqualTo(201);
        }

        @Test
        void unicodeTextRoundTrips() {
            String body = "{\"name\": \"Bericht 📈 für Zürich\", \"executor\": \"shell\", \"payload\": {\"command\": "
                    + "\"echo 日本語\", \"n\": 99999999999999999999, \"x\": 1.5e300}}";

            JsonNode job = api.post("/api/jobs", body).json();

            assertThat(job.get("name").asText()).isEqualTo("Bericht 📈 für Zürich");
            assertThat(job.get("payload").get("command").asText()).isEqualTo("echo 日本語");
            assertThat(job.get("payload").get("n").bigIntegerValue()).isEqualTo(new java.math.BigInteger("99999999999999999999"));
            assertThat(job.get("payload").get("x").asDouble()).isEqualTo(1.5e300);
        }

        @Test
        void theSameBodyWithAnIdempotencyKeyAnswersTheExistingJobWith200() {
            String body = "{\"name\": \"once\", \"executor\": \"shell\", \"idempotency_key\": \"k-1\"}";
            Api.Reply first = api.post("/api/jobs", body);
            assertThat(first.status()).isEqualTo(201);

            Api.Reply replay = api.post("/api/jobs", body);
            Api.Reply sameWithDefaultsSpelledOut = api.post("/api/jobs", "{\"idempotency_key\": \"k-1\", \"priority\": 5, "
                    + "\"executor\": \"shell\", \"name\": \"once\", \"timezone\": \"UTC\"}");

            assertThat(replay.status()).isEqualTo(200);
            assertThat(replay.json()).isEqualTo(first.json());
            assertThat(replay.header("Location")).isNull();
            assertThat(sameWithDefaultsSpelledOut.status()).isEqualTo(200);
            assertThat(store.allJobs()).hasSize(1);
            assertThat(store.allRuns()).hasSize(1);
        }

        /** notice:... keys are the notices' own jobs' (issue 45): a user's, a job's or a batch's, is a 422. */
        @Test
        void anIdempotencyKeyStartingWithNoticeIsRefusedNamingIt() {
            Api.Reply alone = api.post("/api/jobs", "{\"name\": \"n\", \"executor\": \"shell\", "
                    + "\"idempotency_key\": \"notice:1\"}");
            Api.Reply batchKey = api.post("/api/batches", "{\"idempotency_key\": \"notice:2\", \"jobs\": "
                    + "[{\"name\": \"n\", \"executor\": \"shell\"}]}");
            Api.Reply batchJob = api.post("/api/batches", "{\"jobs\": [{\"name\": \"n\", \"executor\": \"shell\", "
                    + "\"idempotency_key\": \"notice:3\"}]}");

            assertThat(alone.status()).as(alone.body()).isEqualTo(422);
            assertThat(alone.json().get("field").asText()).isEqualTo("idempotency_key");
            assertThat(alone.json().get("error").asText()).contains("notice:");
            assertThat(batchKey.status()).as(batchKey.body()).isEqualTo(422);
            assertThat(batchKey.json().get("field").asText()).isEqualTo("idempotency_key");
            assertThat(store.allJobs()).isEmpty();
        }

        @Test
        void anotherBodyWithATakenIdempotencyKeyIs409NamingTheKey() {
            String id = create("{\"name\": \"once\", \"executor\": \"shell\", \"idempotency_key\": \"k-2\"}");

            Api.Reply r = api.post("/api/jobs", "{\"name\": \"other\", \"executor\": \"shell\", \"idempotency_key\": \"k-2\"}");

            assertThat(r.status()).isEqualTo(409);
            assertThat(r.json().get("field").asText()).isEqualTo("idempotency_key");
            assertThat(r.json().get("error").asText()).contains(id);
            assertThat(store.allJobs()).hasSize(1);
        }
    }

    @Nested
    class Runs {
        @Test
        void aRunIsReadWithItsAttemptsAndItsOneOffJobCompletes() {
            String jobId = create(ONE_OFF);
            Run first = store.queue().claim("w1", Set.of("shell"), 10, Duration.ofSeconds(30)).get(0);
            clock.advance(Duration.ofSeconds(2));
            store.queue().acknowledge(List.of(new Acknowledgement(fence(first), AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ZERO, "out", "exit 1")));
            Run second = store.queue().claim("w2", Set.of("shell"), 10, Duration.ofSeconds(30)).get(0);
            clock.advance(Duration.ofSeconds(3));
            store.queue().acknowledge(List.of(new Acknowledgement(fence(second), AttemptOutcome.SUCCEEDED,
                    RunStatus.SUCCEEDED, Duration.ZERO, "hi\n", null)));

            Api.Reply r = api.get("/api/runs/" + first.id());

            assertThat(r.status()).isEqualTo(200);
            JsonNode run = r.json();
            assertThat(r.fieldNames()).containsExactlyElementsOf(concat(RUN_FIELDS, "attempts"));
            assertThat(run.get("status").asText()).isEqualTo("succeeded");
            assertThat(run.get("attempt").asInt()).isEqualTo(2);
            assertThat(run.get("output").asText()).isEqualTo("hi\n");
            assertThat(run.get("finished_at").asText()).isEqualTo("2026-03-01T12:00:05Z");
            assertThat(run.get("worker_id").asText()).as("the worker of its last attempt").isEqualTo("w2");
            assertThat(api.get("/api/runs?status=succeeded").json().get("items").get(0).get("worker_id").asText())
                    .isEqualTo("w2");
            JsonNode attempts = run.get("attempts");
            assertThat(attempts).hasSize(2);
            assertThat(Api.JSON.convertValue(attempts.get(0), java.util.Map.class).keySet())
                    .containsExactly("attempt", "worker_id", "started_at", "finished_at", "outcome", "error",
                            "retry_after_seconds");
            assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("failed");
            assertThat(attempts.get(0).get("error").asText()).isEqualTo("exit 1");
            assertThat(attempts.get(0).get("worker_id").asText()).isEqualTo("w1");
            assertThat(attempts.get(1).get("outcome").asText()).isEqualTo("succeeded");
            assertThat(attempts.get(1).get("finished_at").asText()).isEqualTo("2026-03-01T12:00:05Z");
            assertThat(api.get("/api/jobs/" + jobId).json().get("status").asText()).isEqualTo("completed");
            assertThat(api.get("/api/runs?status=succeeded").json().get("items")).hasSize(1);
            assertThat(api.get("/api/runs?job_id=" + jobId + "&status=pending").json().get("items")).isEmpty();
        }

        @Test
        void listsOfRunsAreNewestFirstAndPaged() {
            String jobId = create(RECURRING);
            String r1 = api.post("/api/jobs/" + jobId + "/trigger").json().get("id").asText();
            String r2 = api.post("/api/jobs/" + jobId + "/trigger").json().get("id").asText();
            String r3 = api.post("/api/jobs/" + jobId + "/trigger").json().get("id").asText();

            JsonNode page = api.get("/api/runs?job_id=" + jobId + "&limit=2").json();
            JsonNode rest = api.get("/api/runs?job_id=" + jobId + "&limit=2&cursor=" + page.get("next_cursor").asText()).json();

            assertThat(page.get("items")).extracting(r -> r.get("id").asText()).containsExactly(r3, r2);
            assertThat(rest.get("items")).extracting(r -> r.get("id").asText()).containsExactly(r1);
            assertThat(page.get("items").get(0).has("attempts")).isFalse();
        }

        @Test
        void cancellingAPendingRunCancelsItAndARunningOneIsAskedToStop() {
            String jobId = create(RECURRING);
            String a = api.post("/api/jobs/" + jobId + "/trigger").json().get("id").asText();
            String b = api.post("/api/jobs/" + jobId + "/trigger").json().get("id").asText();
            Run running = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
            String pending = running.id().equals(a) ? b : a;

            Api.Reply cancelled = api.post("/api/runs/" + pending + "/cancel");
            Api.Reply asked = api.post("/api/runs/" + running.id() + "/cancel");

            assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(200);
            assertThat(cancelled.json().get("status").asText()).isEqualTo("cancelled");
            assertThat(asked.status()).isEqualTo(200);
            assertThat(asked.json().get("status").asText()).isEqualTo("running");
            assertThat(asked.json().get("cancel_requested").asBoolean()).isTrue();
            assertThat(store.queue().cancellationsFor("w1")).containsExactly(running.id());
        }

        @Test
        void aDeadRunIsRequeuedWithItsHistory() {
            String jobId = create(RECURRING);
            api.post("/api/jobs/" + jobId + "/trigger");
            Run run = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
            store.queue().acknowledge(List.of(new Acknowledgement(fence(run), AttemptOutcome.FAILED, RunStatus.DEAD,
                    Duration.ZERO, "", "exit 2")));
            assertThat(api.get("/api/runs?status=dead").json().get("items")).hasSize(1);

            Api.Reply r = api.post("/api/runs/" + run.id() + "/requeue");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("status").asText()).isEqualTo("pending");
            assertThat(r.json().get("max_attempts").asInt()).isEqualTo(1 + 3);
            assertThat(api.get("/api/runs/" + run.id()).json().get("attempts")).hasSize(1);
            assertThat(app.signal.count()).isEqualTo(2);
        }

        @Test
        void aCancelledRunIsRequeued() {
            String jobId = create(RECURRING);
            String runId = api.post("/api/jobs/" + jobId + "/trigger").json().get("id").asText();
            api.post("/api/runs/" + runId + "/cancel");

            Api.Reply r = api.post("/api/runs/" + runId + "/requeue");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("status").asText()).isEqualTo("pending");
        }
    }

    @Nested
    class Operations {
        @Test
        void statsCountRunsInEveryStatus() {
            String jobId = create(RECURRING);
            for (int i = 0; i < 4; i++) {
                api.post("/api/jobs/" + jobId + "/trigger");
            }
            List<Run> held = store.queue().claim("w1", Set.of("shell"), 2, Duration.ofSeconds(30));
            store.queue().acknowledge(List.of(new Acknowledgement(fence(held.get(0)), AttemptOutcome.SUCCEEDED,
                    RunStatus.SUCCEEDED, Duration.ZERO, "", null)));

            Api.Reply r = api.get("/api/stats");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"waiting\":0,\"pending\":2,\"running\":1,\"succeeded\":1,\"dead\":0,\"cancelled\":0}");
        }

        @Test
        void nodesListsLiveNodesWithTheirRunningCount() {
            Instant started = clock.instant().minusSeconds(3600);
            store.nodes().heartbeat(new NodeInfo("node-1", Set.of("worker", "api"), "0.1.0", started, true));
            String jobId = create(ONE_OFF);
            store.queue().claim("node-1", Set.of("shell"), 1, Duration.ofSeconds(30));

            Api.Reply r = api.get("/api/nodes");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.fieldNames()).containsExactly("items");
            JsonNode node = r.json().get("items").get(0);
            assertThat(Api.JSON.convertValue(node, java.util.Map.class).keySet())
                    .containsExactly("worker_id", "roles", "version", "started_at", "last_seen_at", "running", "leader",
                            "status", "containment", "job_user", "grpc", "database_pooling", "wake_ups", "leadership",
                            "leader_term", "connections");
            assertThat(node.get("connections").isNull()).as("a node that does not say").isTrue();
            assertThat(node.get("worker_id").asText()).isEqualTo("node-1");
            assertThat(node.get("roles")).extracting(JsonNode::asText).containsExactly("api", "worker");
            assertThat(node.get("version").asText()).isEqualTo("0.1.0");
            assertThat(node.get("started_at").asText()).isEqualTo("2026-03-01T11:00:00Z");
            assertThat(node.get("last_seen_at").asText()).isEqualTo(START);
            assertThat(node.get("running").asLong()).isEqualTo(1);
            assertThat(node.get("leader").asBoolean()).isTrue();
            assertThat(node.get("status").asText()).isEqualTo("live");
            assertThat(jobId).isNotBlank();
        }

        @Test
        void healthzAndReadyz() {
            assertThat(api.get("/healthz").body()).isEqualTo("{\"status\":\"ok\"}");
            Api.Reply ready = api.get("/readyz");
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");

            app.notReadyBecause.set("database unreachable: connection refused");
            Api.Reply notReady = api.get("/readyz");

            assertThat(notReady.status()).isEqualTo(503);
            assertThat(notReady.body())
                    .isEqualTo("{\"error\":\"database unreachable: connection refused\",\"code\":\"unavailable\"}");
        }

        @Test
        void anUnexpectedFailureIs500WithAnErrorIdThatIsLoggedWithTheStackTrace() {
            Logger logger = (Logger) LoggerFactory.getLogger(UnexpectedExceptionMapper.class);
            ListAppender<ILoggingEvent> appender = new ListAppender<>();
            appender.start();
            Level before = logger.getLevel();
            boolean additive = logger.isAdditive();
            logger.addAppender(appender);
            logger.setLevel(Level.ERROR);
            logger.setAdditive(false);
            try {
                Api.Reply r = api.get("/test/boom");

                assertThat(r.status()).isEqualTo(500);
                String errorId = r.json().get("error_id").asText();
                assertThat(r.json().get("error").asText()).contains(errorId);
                assertThat(r.body()).doesNotContain("secret", "Secret", ".java", "IllegalStateException");
                assertThat(appender.list).singleElement().satisfies(e -> {
                    assertThat(e.getFormattedMessage()).contains(errorId);
                    assertThat(e.getThrowableProxy().getClassName()).isEqualTo(IllegalStateException.class.getName());
                });
            } finally {
                logger.detachAppender(appender);
                logger.setLevel(before);
                logger.setAdditive(additive);
            }
        }

        @Test
        void jacksonErrorsOfABoundBodyAreAnsweredByTheAdaptersMapperNotTheCatchAll() {
            Api.Reply wrongType = api.post("/test/bind", "{\"count\": \"many\"}");
            Api.Reply wrongShape = api.post("/test/bind", "{\"count\": [1]}");
            Api.Reply malformed = api.post("/test/bind", "{\"count\": ");
            Api.Reply badInstant = api.post("/test/bind", "{\"when\": \"yesterday\"}");

            assertThat(wrongType.status()).as(wrongType.body()).isEqualTo(422);
            assertThat(wrongType.json().get("field").asText()).isEqualTo("count");
            assertThat(wrongShape.status()).as(wrongShape.body()).isEqualTo(422);
            assertThat(wrongShape.json().get("field").asText()).isEqualTo("count");
            assertThat(malformed.status()).as(malformed.body()).isEqualTo(400);
            assertThat(badInstant.status()).as(badInstant.body()).isEqualTo(422);
            assertThat(badInstant.json().get("field").asText()).isEqualTo("when");
            assertThat(api.post("/test/bind", "{\"count\": 3}").body()).isEqualTo("{\"count\":3,\"when\":null}");
        }

        @Test
        void unknownRoutesAndWrongMethodsAnswerJson() {
            Api.Reply missing = api.get("/api/nothing-here");
            assertThat(missing.status()).isEqualTo(404);
            assertThat(missing.json().get("error").asText()).contains("/api/nothing-here");

            Api.Reply wrong = api.method("PUT", "/api/jobs/" + create(ONE_OFF));
            assertThat(wrong.status()).isEqualTo(405);
            assertThat(wrong.header("Allow")).contains("GET", "PATCH", "DELETE");
            assertThat(wrong.json().get("error").asText()).contains("PUT");
        }
    }

    @Nested
    class ControlsOfMissingOrFinishedThings {
        static final String UNKNOWN = "01900000-0000-7000-8000-000000000000";

        @Test
        void everyJobControlAnswers404ForAnUnknownOrMalformedId() {
            for (String id : List.of(UNKNOWN, "not-an-id", "0190", "DROP TABLE jobs")) {
                String path = "/api/jobs/" + id.replace(" ", "%20");
                for (String action : List.of("", "/pause", "/resume", "/cancel", "/trigger")) {
                    Api.Reply r = action.isEmpty() ? api.get(path) : api.post(path + action);
                    assertThat(r.status()).as(path + action).isEqualTo(404);
                    assertThat(r.json().get("error").asText()).contains("no job");
                }
            }
        }

        @Test
        void everyRunControlAnswers404ForAnUnknownOrMalformedId() {
            for (String id : List.of(UNKNOWN, "not-an-id")) {
                for (String action : List.of("", "/cancel", "/requeue")) {
                    Api.Reply r = action.isEmpty() ? api.get("/api/runs/" + id) : api.post("/api/runs/" + id + action);
                    assertThat(r.status()).as(id + action).isEqualTo(404);
                    assertThat(r.json().get("error").asText()).contains("no run");
                }
            }
        }

        @Test
        void aCancelledJobCannotBePausedResumedOrTriggered() {
            String id = create(RECURRING);
            api.post("/api/jobs/" + id + "/cancel");

            for (String action : List.of("pause", "resume", "trigger")) {
                Api.Reply r = api.post("/api/jobs/" + id + "/" + action);
                assertThat(r.status()).as(action).isEqualTo(409);
                assertThat(r.json().get("error").asText()).contains("cancelled");
            }
        }

        @Test
        void aCompletedJobCannotBePausedOrCancelled() {
            String id = create(ONE_OFF);
            Run run = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
            store.queue().acknowledge(List.of(new Acknowledgement(fence(run), AttemptOutcome.SUCCEEDED,
                    RunStatus.SUCCEEDED, Duration.ZERO, "", null)));

            assertThat(api.post("/api/jobs/" + id + "/pause").status()).isEqualTo(409);
            assertThat(api.post("/api/jobs/" + id + "/cancel").status()).isEqualTo(409);
            assertThat(api.post("/api/jobs/" + id + "/resume").status()).isEqualTo(409);
        }

        @Test
        void aPendingRunCannotBeRequeuedAndASucceededOneCannotBeCancelledOrRequeued() {
            String jobId = create(ONE_OFF);
            Run pending = onlyRunOf(jobId);
            Api.Reply requeuePending = api.post("/api/runs/" + pending.id() + "/requeue");
            assertThat(requeuePending.status()).isEqualTo(409);
            assertThat(requeuePending.json().get("error").asText()).contains("pending");

            Run run = store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
            store.queue().acknowledge(List.of(new Acknowledgement(fence(run), AttemptOutcome.SUCCEEDED,
                    RunStatus.SUCCEEDED, Duration.ZERO, "", null)));

            assertThat(api.post("/api/runs/" + run.id() + "/cancel").status()).isEqualTo(409);
            assertThat(api.post("/api/runs/" + run.id() + "/requeue").status()).isEqualTo(409);
        }
    }

    static List<String> concat(List<String> list, String more) {
        List<String> all = new java.util.ArrayList<>(list);
        all.add(more);
        return all;
    }
}
