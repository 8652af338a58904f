package io.forgeflow.client;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every route of API.md against a real HTTP server on loopback: what goes on the wire, and what comes back. */
class ForgeFlowClientTest {
    static final String JOB = """
            {"id": "job_1", "name": "nightly", "executor": "shell", "payload": {"command": "echo hi"},
             "cron_expr": "0 3 * * *", "run_at": null, "timezone": "Europe/Berlin", "priority": 2,
             "max_attempts": 4, "timeout_seconds": 600, "catch_up": "once", "idempotency_key": "k1",
             "status": "active", "next_run_at": "2026-07-02T01:00:00Z", "created_at": "2026-07-01T09:30:00Z",
             "updated_at": "2026-07-01T09:30:00Z", "a_field_added_later": {"nested": [1, 2]}}""";
    static final String RUN = """
            {"id": "run_9", "job_id": "job_1", "status": "dead", "attempt": 3, "max_attempts": 3, "priority": 2,
             "scheduled_for": "2026-07-01T09:30:00Z", "started_at": "2026-07-01T09:30:01Z",
             "finished_at": "2026-07-01T09:31:00Z", "worker_id": null, "lease_expires_at": null,
             "output": "partial", "error": "exit code 1", "cancel_requested": false}""";

    MockWebServer server;
    ForgeFlowClient client;

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start();
        client = ForgeFlowClient.builder(server.url("/").toString()).eventRetry(Duration.ofMillis(20)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    void answer(int code, String body) {
        server.enqueue(new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json")
                .body(body).build());
    }

    RecordedRequest request() throws InterruptedException {
        RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(r).as("a request reached the server").isNotNull();
        return r;
    }

    @Nested
    class Jobs {
        @Test
        void submitJobPostsTheRequestAsSnakeCaseJsonAndReportsCreation() throws Exception {
            answer(201, JOB);

            SubmitResult result = client.submitJob(JobRequest.shell("nightly", "echo hi")
                    .cron("0 3 * * *", "Europe/Berlin").priority(2).maxAttempts(4).timeoutSeconds(600)
                    .catchUp("once").idempotencyKey("k1").build());

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("POST");
            assertThat(r.getTarget()).isEqualTo("/api/jobs");
            assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
            assertThat(client.json().readTree(r.getBody().utf8())).isEqualTo(client.json().readTree("""
                    {"name": "nightly", "executor": "shell", "payload": {"command": "echo hi"},
                     "cron_expr": "0 3 * * *", "timezone": "Europe/Berlin", "priority": 2, "max_attempts": 4,
                     "timeout_seconds": 600, "catch_up": "once", "idempotency_key": "k1"}"""));
            assertThat(result.created()).isTrue();
            Job job = result.job();
            assertThat(job.id()).isEqualTo("job_1");
            assertThat(job.cronExpr()).isEqualTo("0 3 * * *");
            assertThat(job.timezone()).isEqualTo("Europe/Berlin");
            assertThat(job.maxAttempts()).isEqualTo(4);
            assertThat(job.timeoutSeconds()).isEqualTo(600);
            assertThat(job.catchUp()).isEqualTo("once");
            assertThat(job.payload()).containsEntry("command", "echo hi");
            assertThat(job.runAt()).isNull();
            assertThat(job.nextRunAt()).isEqualTo(Instant.parse("2026-07-02T01:00:00Z"));
            assertThat(job.createdAt()).isEqualTo(Instant.parse("2026-07-01T09:30:00Z"));
        }

        @Test
        void submitJobLeavesUnsetFieldsOutSoTheServerDefaultsApply() throws Exception {
            answer(201, JOB);

            client.submitJob(JobRequest.http("ping", "https://example.test/hook")
                    .runAt(Instant.parse("2026-07-01T10:00:00Z")).build());

            assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree("""
                    {"name": "ping", "executor": "http", "payload": {"url": "https://example.test/hook"},
                     "run_at": "2026-07-01T10:00:00Z"}"""));
        }

        @Test
        void submitJobReportsAReplayedIdempotentSubmissionAsNotCreated() {
            answer(200, JOB);

            SubmitResult result = client.submitJob(JobRequest.shell("nightly", "echo hi").idempotencyKey("k1").build());

            assertThat(result.created()).isFalse();
            assertThat(result.job().id()).isEqualTo("job_1");
        }

        @Test
        void listJobsSendsOnlyTheGivenQueryParameters() throws Exception {
            answer(200, "{\"items\": [" + JOB + "], \"next_cursor\": \"c2\"}");
            answer(200, "{\"items\": [], \"next_cursor\": null}");

            Page<Job> first = client.listJobs("paused", 10, "c1");
            Page<Job> second = client.listJobs();

            RecordedRequest r1 = request();
            assertThat(r1.getMethod()).isEqualTo("GET");
            assertThat(r1.getUrl().encodedPath()).isEqualTo("/api/jobs");
            assertThat(r1.getUrl().queryParameter("status")).isEqualTo("paused");
            assertThat(r1.getUrl().queryParameter("limit")).isEqualTo("10");
            assertThat(r1.getUrl().queryParameter("cursor")).isEqualTo("c1");
            assertThat(request().getTarget()).isEqualTo("/api/jobs");
            assertThat(first.items()).extracting(Job::name).containsExactly("nightly");
            assertThat(first.nextCursor()).isEqualTo("c2");
            assertThat(first.hasMore()).isTrue();
            assertThat(second.items()).isEmpty();
            assertThat(second.hasMore()).isFalse();
        }

        @Test
        void listJobsSendsEveryFilterAndALabelParameterPerLabel() throws Exception {
            answer(200, "{\"items\": [" + JOB.replace("\"status\"", "\"labels\": {\"team\": \"billing\"}, \"status\"")
                    + "], \"next_cursor\": null}");

            Page<Job> page = client.listJobs(JobFilter.create().status("active").queue("reports")
                    .label("team", "billing").label("env", "prod:eu").namePrefix("nightly-"), 5, "c1");

            RecordedRequest r = request();
            assertThat(r.getUrl().encodedPath()).isEqualTo("/api/jobs");
            assertThat(r.getUrl().queryParameter("status")).isEqualTo("active");
            assertThat(r.getUrl().queryParameter("queue")).isEqualTo("reports");
            assertThat(r.getUrl().queryParameterValues("label")).containsExactly("team:billing", "env:prod:eu");
            assertThat(r.getUrl().queryParameter("name_prefix")).isEqualTo("nightly-");
            assertThat(r.getUrl().queryParameter("limit")).isEqualTo("5");
            assertThat(r.getUrl().queryParameter("cursor")).isEqualTo("c1");
            assertThat(page.items().get(0).labels()).isEqualTo(Map.of("team", "billing"));
        }

        @Test
        void labelsAreSubmittedAndChangedAndReadAsEmptyFromAServerWithoutThem() throws Exception {
            answer(201, JOB);
            answer(200, JOB);

            Job job = client.submitJob(JobRequest.shell("nightly", "echo hi").label("team", "billing").build()).job();
            client.updateJob("job_1", JobUpdate.create().labels(Map.of("team", "ops")));

            assertThat(request().getBody().utf8()).contains("\"labels\":{\"team\":\"billing\"}");
            assertThat(request().getBody().utf8()).isEqualTo("{\"labels\":{\"team\":\"ops\"}}");
            assertThat(job.labels()).isEmpty();
        }

        @Test
        void getJobEncodesTheIdAsOnePathSegment() throws Exception {
            answer(200, JOB);

            client.getJob("a/b c");

            assertThat(request().getTarget()).isEqualTo("/api/jobs/a%2Fb%20c");
        }

        @Test
        void pauseResumeAndCancelPostToTheirActionRoutesWithoutABody() throws Exception {
            answer(200, JOB.replace("\"active\"", "\"paused\""));
            answer(200, JOB);
            answer(200, JOB.replace("\"active\"", "\"cancelled\""));

            assertThat(client.pauseJob("job_1").status()).isEqualTo(Job.PAUSED);
            assertThat(client.resumeJob("job_1").status()).isEqualTo(Job.ACTIVE);
            assertThat(client.cancelJob("job_1").status()).isEqualTo(Job.CANCELLED);

            for (String action : List.of("pause", "resume", "cancel")) {
                RecordedRequest r = request();
                assertThat(r.getMethod()).isEqualTo("POST");
                assertThat(r.getTarget()).isEqualTo("/api/jobs/job_1/" + action);
                assertThat(r.getBodySize()).isZero();
                assertThat(r.getHeaders().get("Content-Type")).isNull();
            }
        }

        @Test
        void triggerReturnsTheEnqueuedRun() throws Exception {
            answer(201, RUN.replace("\"dead\"", "\"pending\""));

            Run run = client.triggerJob("job_1");

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("POST");
            assertThat(r.getTarget()).isEqualTo("/api/jobs/job_1/trigger");
            assertThat(run.status()).isEqualTo(Run.PENDING);
            assertThat(run.jobId()).isEqualTo("job_1");
        }
    }

    @Nested
    class EditAndDelete {
        @Test
        void updateJobPatchesOnlyTheFieldsItSetsNullIncluded() throws Exception {
            answer(200, JOB);

            Job job = client.updateJob("j-1", JobUpdate.create().cron("0 4 * * *").priority(2).concurrencyKey(null)
                    .runAt(null), true);

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("PATCH");
            assertThat(r.getTarget()).isEqualTo("/api/jobs/j-1?pending=keep");
            assertThat(client.json().readTree(r.getBody().utf8())).isEqualTo(client.json().readTree(
                    "{\"cron_expr\": \"0 4 * * *\", \"priority\": 2, \"concurrency_key\": null, \"run_at\": null}"));
            assertThat(job).isNotNull();
            answer(200, JOB);
            client.updateJob("j-1", JobUpdate.create().name("x"));
            assertThat(request().getTarget()).isEqualTo("/api/jobs/j-1");
        }

        @Test
        void aRefusedUpdateCarriesTheFieldAndCode() {
            answer(422, "{\"error\": \"executor cannot be changed\", \"field\": \"executor\", "
                    + "\"code\": \"validation_failed\"}");

            assertThatThrownBy(() -> client.updateJob("j-1", JobUpdate.create().priority(3)))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.field()).isEqualTo("executor");
                        assertThat(e.code()).isEqualTo("validation_failed");
                    });
        }

        @Test
        void deleteJobAnswersTheTombstoneOrNothingWhenPurged() throws Exception {
            answer(200, JOB);
            assertThat(client.deleteJob("j-1", false, false)).isPresent();
            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("DELETE");
            assertThat(r.getTarget()).isEqualTo("/api/jobs/j-1");

            answer(204, "");
            assertThat(client.deleteJob("j-1", true, true)).isEmpty();
            assertThat(request().getTarget()).isEqualTo("/api/jobs/j-1?cancel_running=true&purge=true");

            answer(409, "{\"error\": \"job j-1 has a running run\", \"code\": \"job_running\", \"job_id\": \"j-1\"}");
            assertThatThrownBy(() -> client.deleteJob("j-1", false, false))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.isConflict()).isTrue();
                        assertThat(e.code()).isEqualTo("job_running");
                    });
        }

        @Test
        void anUpdateKnowsWhetherItSetsAnything() {
            assertThat(JobUpdate.create().isEmpty()).isTrue();
            assertThat(JobUpdate.create().timezone("UTC").maxAttempts(2).timeoutSeconds(9).catchUp("once")
                    .queue("q").maxConcurrent(2).overlap("skip").payload(java.util.Map.of("command", "x"))
                    .body()).containsOnlyKeys("timezone", "max_attempts", "timeout_seconds", "catch_up", "queue",
                    "max_concurrent", "overlap", "payload");
            assertThat(JobUpdate.create().payload(null).body()).containsEntry("payload", null);
        }
    }

    @Nested
    class Runs {
        @Test
        void listRunsFiltersByJobAndStatusWithPaging() throws Exception {
            answer(200, "{\"items\": [" + RUN + "], \"next_cursor\": null}");

            Page<Run> page = client.listRuns("job_1", "dead", 500, "abc");

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("GET");
            assertThat(r.getUrl().encodedPath()).isEqualTo("/api/runs");
            assertThat(r.getUrl().queryParameter("job_id")).isEqualTo("job_1");
            assertThat(r.getUrl().queryParameter("status")).isEqualTo("dead");
            assertThat(r.getUrl().queryParameter("limit")).isEqualTo("500");
            assertThat(r.getUrl().queryParameter("cursor")).isEqualTo("abc");
            Run run = page.items().get(0);
            assertThat(run.status()).isEqualTo(Run.DEAD);
            assertThat(run.attempt()).isEqualTo(3);
            assertThat(run.error()).isEqualTo("exit code 1");
            assertThat(run.output()).isEqualTo("partial");
            assertThat(run.workerId()).isNull();
            assertThat(run.attempts()).isNull();
            assertThat(run.attemptsOrEmpty()).isEmpty();
            assertThat(page.hasMore()).isFalse();
            assertThat(run.waitingFor()).as("a server that predates waiting_for").isNull();
        }

        @Test
        void aPendingRunAndItsJobSayWhatTheyWaitFor() throws Exception {
            answer(200, "{\"items\": [" + RUN.replace("\"status\": \"dead\"", "\"status\": \"pending\"")
                    .replace("\"cancel_requested\": false", "\"cancel_requested\": false, "
                            + "\"waiting_for\": \"handler send-receipt\"") + "], \"next_cursor\": null}");
            assertThat(client.listRuns(null, null, null, null).items().get(0).waitingFor())
                    .isEqualTo("handler send-receipt");

            answer(200, JOB.replace("\"a_field_added_later\"", "\"waiting_for\": \"handler send-receipt\", "
                    + "\"a_field_added_later\""));
            assertThat(client.getJob("job_1").waitingFor()).isEqualTo("handler send-receipt");

            answer(200, JOB);
            assertThat(client.getJob("job_1").waitingFor()).isNull();
        }

        @Test
        void listRunsSendsEveryFilter() throws Exception {
            answer(200, "{\"items\": [" + RUN.replace("\"cancel_requested\"", "\"labels\": {\"env\": \"prod\"}, "
                    + "\"cancel_requested\"") + "], \"next_cursor\": null}");

            Page<Run> page = client.listRuns(RunFilter.create().jobId("job_1").status("dead").queue("billing")
                    .label("env", "prod").scheduledAfter(Instant.parse("2026-07-01T00:00:00Z"))
                    .scheduledBefore(Instant.parse("2026-07-02T00:00:00Z"))
                    .finishedAfter(Instant.parse("2026-07-01T09:00:00Z")), 100, null);

            RecordedRequest r = request();
            assertThat(r.getUrl().queryParameter("job_id")).isEqualTo("job_1");
            assertThat(r.getUrl().queryParameter("status")).isEqualTo("dead");
            assertThat(r.getUrl().queryParameter("queue")).isEqualTo("billing");
            assertThat(r.getUrl().queryParameterValues("label")).containsExactly("env:prod");
            assertThat(r.getUrl().queryParameter("scheduled_after")).isEqualTo("2026-07-01T00:00:00Z");
            assertThat(r.getUrl().queryParameter("scheduled_before")).isEqualTo("2026-07-02T00:00:00Z");
            assertThat(r.getUrl().queryParameter("finished_after")).isEqualTo("2026-07-01T09:00:00Z");
            assertThat(r.getUrl().queryParameter("cursor")).isNull();
            assertThat(page.items().get(0).labels()).isEqualTo(Map.of("env", "prod"));
        }

        @Test
        void listRunsAcrossJobsSendsNoQuery() throws Exception {
            answer(200, "{\"items\": [], \"next_cursor\": null}");

            client.listRuns(null, null, null, null);

            assertThat(request().getTarget()).isEqualTo("/api/runs");
        }

        @Test
        void getRunReadsTheAttemptTimeline() throws Exception {
            answer(200, RUN.replace("\"cancel_requested\": false", """
                    "attempts": [
                      {"attempt": 1, "worker_id": "w1", "started_at": "2026-07-01T09:30:01Z",
                       "finished_at": "2026-07-01T09:30:02Z", "outcome": "failed", "error": "exit code 1"},
                      {"attempt": 2, "worker_id": "w2", "started_at": "2026-07-01T09:30:05Z",
                       "finished_at": null, "outcome": "lease_expired", "error": null}]"""));

            Run run = client.getRun("run_9");

            assertThat(request().getTarget()).isEqualTo("/api/runs/run_9");
            assertThat(run.attempts()).hasSize(2);
            Attempt first = run.attempts().get(0);
            assertThat(first.attempt()).isEqualTo(1);
            assertThat(first.workerId()).isEqualTo("w1");
            assertThat(first.startedAt()).isEqualTo(Instant.parse("2026-07-01T09:30:01Z"));
            assertThat(first.finishedAt()).isEqualTo(Instant.parse("2026-07-01T09:30:02Z"));
            assertThat(first.outcome()).isEqualTo("failed");
            assertThat(first.error()).isEqualTo("exit code 1");
            assertThat(run.attempts().get(1).finishedAt()).isNull();
        }

        @Test
        void aRunCarriesItsSnoozesAndZeroFromAServerThatPredatesThem() throws Exception {
            answer(200, RUN.replace("\"cancel_requested\": false", "\"snoozes\": 4, \"attempts\": [{\"attempt\": 1, "
                    + "\"worker_id\": \"w1\", \"started_at\": \"2026-07-01T09:30:01Z\", \"finished_at\": "
                    + "\"2026-07-01T09:30:02Z\", \"outcome\": \"snoozed\", \"error\": \"snoozed for 60s\"}]"));
            answer(200, RUN);

            Run snoozed = client.getRun("run_9");
            Run older = client.getRun("run_9");

            assertThat(snoozed.snoozes()).isEqualTo(4);
            assertThat(snoozed.attempts()).singleElement().extracting(Attempt::outcome).isEqualTo("snoozed");
            assertThat(older.snoozes()).isZero();
        }

        @Test
        void runsAndJobsCarryTheirTraceIdAndARunItsTraceUrl() throws Exception {
            answer(200, RUN.replace("\"cancel_requested\": false", "\"trace_id\": "
                    + "\"4bf92f3577b34da6a3ce929d0e0e4736\", \"trace_url\": \"http://tempo/trace/4bf92f3577b34da6a3ce929d0e0e4736\""));
            answer(200, RUN);
            answer(200, JOB.replace("\"a_field_added_later\"", "\"trace_id\": \"0af7651916cd43dd8448eb211c80319c\", "
                    + "\"a_field_added_later\""));

            Run traced = client.getRun("run_9");
            Run untraced = client.getRun("run_9");
            Job job = client.getJob("job_1");

            assertThat(traced.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
            assertThat(traced.traceUrl()).isEqualTo("http://tempo/trace/4bf92f3577b34da6a3ce929d0e0e4736");
            assertThat(untraced.traceId()).isNull();
            assertThat(untraced.traceUrl()).isNull();
            assertThat(job.traceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        }

        @Test
        void requeueAndCancelPostToTheRunsActionRoutes() throws Exception {
            answer(200, RUN.replace("\"dead\"", "\"pending\""));
            answer(200, RUN.replace("\"dead\"", "\"cancelled\""));

            assertThat(client.requeueRun("run_9").status()).isEqualTo(Run.PENDING);
            assertThat(client.cancelRun("run_9").status()).isEqualTo(Run.CANCELLED);

            RecordedRequest requeue = request();
            assertThat(requeue.getMethod()).isEqualTo("POST");
            assertThat(requeue.getTarget()).isEqualTo("/api/runs/run_9/requeue");
            RecordedRequest cancel = request();
            assertThat(cancel.getMethod()).isEqualTo("POST");
            assertThat(cancel.getTarget()).isEqualTo("/api/runs/run_9/cancel");
        }
    }

    static final String QUEUE = """
            {"name": "reports", "paused": true, "max_running": 2, "rate_limit": {"count": 100, "per_seconds": 60},
             "pending": 7, "due": 5, "running": 2, "lag_seconds": 12.34, "starts_in_window": 40,
             "a_field_added_later": true}""";

    @Nested
    class Schedules {
        @Test
        void scheduleControlsAreSentAndReadBack() throws Exception {
            answer(201, JOB.replace("\"status\"", "\"start_at\": \"2026-03-01T15:00:00Z\", \"end_at\": null, "
                    + "\"max_runs\": 3, \"jitter_seconds\": 30, \"pause_after_failures\": 2, \"fired_runs\": 1, "
                    + "\"dead_streak\": 1, \"paused_note\": \"vendor outage\", \"paused_by\": \"token 3\", \"status\""));

            Job job = client.submitJob(JobRequest.builder("hourly", "shell").cron("@hourly")
                    .startAt(Instant.parse("2026-03-01T15:00:00Z")).maxRuns(3).jitterSeconds(30).pauseAfterFailures(2)
                    .build()).job();

            String body = request().getBody().utf8();
            assertThat(body).contains("\"start_at\":\"2026-03-01T15:00:00Z\"", "\"max_runs\":3",
                    "\"jitter_seconds\":30", "\"pause_after_failures\":2").doesNotContain("end_at");
            assertThat(job.startAt()).isEqualTo(Instant.parse("2026-03-01T15:00:00Z"));
            assertThat(job.endAt()).isNull();
            assertThat(job.maxRuns()).isEqualTo(3);
            assertThat(job.jitterSeconds()).isEqualTo(30);
            assertThat(job.pauseAfterFailures()).isEqualTo(2);
            assertThat(job.firedRuns()).isEqualTo(1);
            assertThat(job.deadStreak()).isEqualTo(1);
            assertThat(job.pausedNote()).isEqualTo("vendor outage");
            assertThat(job.pausedBy()).isEqualTo("token 3");
        }

        @Test
        void aPauseSendsItsNoteAndAnUpdateItsControls() throws Exception {
            answer(200, JOB);
            answer(200, JOB);
            answer(200, JOB);

            client.pauseJob("job_1", "vendor outage");
            client.pauseJob("job_1", null);
            client.updateJob("job_1", JobUpdate.create().maxRuns(null).endAt(Instant.parse("2026-04-01T00:00:00Z"))
                    .jitterSeconds(10).startAt(null).pauseAfterFailures(4));

            RecordedRequest noted = request();
            assertThat(noted.getTarget()).isEqualTo("/api/jobs/job_1/pause");
            assertThat(client.json().readTree(noted.getBody().utf8()))
                    .isEqualTo(client.json().readTree("{\"note\": \"vendor outage\"}"));
            assertThat(request().getBody().size()).as("no note: no body").isZero();
            assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree(
                    "{\"max_runs\": null, \"end_at\": \"2026-04-01T00:00:00Z\", \"jitter_seconds\": 10, "
                            + "\"start_at\": null, \"pause_after_failures\": 4}"));
        }

        @Test
        void aBackfillIsPostedAndItsProgressRead() throws Exception {
            String backfill = "{\"id\": \"b1\", \"job_id\": \"job_1\", \"from\": \"2026-04-01T00:00:00Z\", "
                    + "\"to\": \"2026-04-02T00:00:00Z\", \"overlap\": \"queue_one\", \"ticks\": 25, \"created\": 24, "
                    + "\"skipped\": 1, \"created_at\": \"2026-04-03T00:00:00Z\", \"done\": false, "
                    + "\"runs\": {\"pending\": 23, \"running\": 1}}";
            answer(201, backfill);
            answer(200, backfill.replace("\"done\": false", "\"done\": true"));

            Backfill b = client.backfillJob("job_1", Instant.parse("2026-04-01T00:00:00Z"),
                    Instant.parse("2026-04-02T00:00:00Z"), "queue_one");
            Backfill later = client.getBackfill("job_1", "b1");

            RecordedRequest post = request();
            assertThat(post.getTarget()).isEqualTo("/api/jobs/job_1/backfill");
            assertThat(client.json().readTree(post.getBody().utf8())).isEqualTo(client.json().readTree(
                    "{\"from\": \"2026-04-01T00:00:00Z\", \"to\": \"2026-04-02T00:00:00Z\", \"overlap\": \"queue_one\"}"));
            assertThat(request().getTarget()).isEqualTo("/api/jobs/job_1/backfill/b1");
            assertThat(b.ticks()).isEqualTo(25);
            assertThat(b.created()).isEqualTo(24);
            assertThat(b.skipped()).isEqualTo(1);
            assertThat(b.runs()).containsEntry("pending", 23L).containsEntry("running", 1L);
            assertThat(b.from()).isEqualTo(Instant.parse("2026-04-01T00:00:00Z"));
            assertThat(later.done()).isTrue();
        }

        @Test
        void aJobsOwnScheduleIsPreviewedWithItsJitter() throws Exception {
            answer(200, "{\"items\": [{\"at\": \"2026-03-01T15:00:12Z\", \"local\": \"2026-03-01T15:00:12Z\", "
                    + "\"tick\": \"2026-03-01T15:00:00Z\", \"jitter_seconds\": 12}, {\"at\": \"2026-03-01T16:00:00Z\", "
                    + "\"local\": \"2026-03-01T16:00:00Z\", \"note\": \"the last run (max_runs 2)\"}]}");

            List<ScheduledFire> fires = client.previewJobSchedule("job_1", null, 5);

            assertThat(request().getTarget()).isEqualTo("/api/schedules/preview?job_id=job_1&count=5");
            assertThat(fires.get(0).tick()).isEqualTo(Instant.parse("2026-03-01T15:00:00Z"));
            assertThat(fires.get(0).jitterSeconds()).isEqualTo(12);
            assertThat(fires.get(1).tick()).as("no jitter: the tick is the fire").isEqualTo(fires.get(1).at());
            assertThat(fires.get(1).jitterSeconds()).isZero();
            assertThat(fires.get(1).note()).isEqualTo("the last run (max_runs 2)");
        }

        @Test
        void previewScheduleSendsTheQueryAndReadsTheFiresWithTheirOffsetAndNote() throws Exception {
            answer(200, "{\"items\": [{\"at\": \"2026-03-08T07:00:00Z\", \"local\": \"2026-03-08T03:00:00-04:00\", "
                    + "\"note\": \"02:30 does not exist (DST gap): fired at the first valid instant\"}, "
                    + "{\"at\": \"2026-03-09T06:30:00Z\", \"local\": \"2026-03-09T02:30:00-04:00\"}]}");

            List<ScheduledFire> fires = client.previewSchedule("30 2 * * *", "America/New_York",
                    Instant.parse("2026-03-07T12:00:00Z"), 2);

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("GET");
            assertThat(r.getTarget()).isEqualTo("/api/schedules/preview?cron_expr=30%202%20*%20*%20*"
                    + "&timezone=America%2FNew_York&after=2026-03-07T12%3A00%3A00Z&count=2");
            assertThat(fires).hasSize(2);
            assertThat(fires.get(0).at()).isEqualTo(Instant.parse("2026-03-08T07:00:00Z"));
            assertThat(fires.get(0).local()).isEqualTo(java.time.OffsetDateTime.parse("2026-03-08T03:00:00-04:00"));
            assertThat(fires.get(0).local().getOffset().getId()).isEqualTo("-04:00");
            assertThat(fires.get(0).note()).startsWith("02:30 does not exist");
            assertThat(fires.get(1).note()).isNull();
        }

        @Test
        void previewScheduleLeavesOutWhatIsNotGivenAndReportsA422WithItsField() throws Exception {
            answer(422, "{\"error\": \"cron_expr '0 0 1,L * *' uses L, W or # wrongly\", \"field\": \"cron_expr\"}");

            assertThatThrownBy(() -> client.previewSchedule("0 0 1,L * *", null, null, null))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.field()).isEqualTo("cron_expr");
                    });
            assertThat(request().getTarget()).isEqualTo("/api/schedules/preview?cron_expr=0%200%201%2CL%20*%20*");
        }
    }

    @Nested
    class Queues {
        @Test
        void queuesReadsTheListEnvelope() throws Exception {
            answer(200, "{\"queues\": [" + QUEUE + ", {\"name\": \"default\", \"paused\": false, "
                    + "\"max_running\": null, \"rate_limit\": null, \"pending\": 0, \"due\": 0, \"running\": 0, "
                    + "\"lag_seconds\": 0.0, \"starts_in_window\": 0}]}");

            List<Queue> queues = client.queues();

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("GET");
            assertThat(r.getTarget()).isEqualTo("/api/queues");
            assertThat(queues).hasSize(2);
            assertThat(queues.get(0)).isEqualTo(new Queue("reports", true, 2, new Queue.RateLimit(100, 60), 7, 5, 2,
                    12.34, 40));
            assertThat(queues.get(1).maxRunning()).isNull();
            assertThat(queues.get(1).rateLimit()).isNull();
            assertThat(queues.get(1).paused()).isFalse();
        }

        @Test
        void aQueueCarriesItsTenantAndOneFromAnOlderServerHasNone() throws Exception {
            answer(200, "{\"items\": [" + QUEUE.substring(0, QUEUE.length() - 1) + ", \"tenant\": \"acme\"}, "
                    + QUEUE + "]}");

            List<Queue> queues = client.withTenant("acme").queues();

            assertThat(queues).extracting(Queue::tenant).containsExactly("acme", null);
            assertThat(request().getHeaders().get("X-ForgeFlow-Tenant")).isEqualTo("acme");
        }

        @Test
        void queuesReadsItemsBeforeTheDeprecatedQueuesAlias() throws Exception {
            answer(200, "{\"items\": [" + QUEUE + "], \"queues\": []}");

            assertThat(client.queues()).extracting(Queue::name).containsExactly("reports");
        }

        @Test
        void queuesOfAnEmptyOrNullListIsEmpty() {
            answer(200, "{\"queues\": []}");
            answer(200, "{\"queues\": null}");

            assertThat(client.queues()).isEmpty();
            assertThat(client.queues()).isEmpty();
        }

        @Test
        void queueReadsOneQueueByItsEncodedName() throws Exception {
            answer(200, QUEUE);

            Queue q = client.queue("reports.v2");

            assertThat(request().getTarget()).isEqualTo("/api/queues/reports.v2");
            assertThat(q.name()).isEqualTo("reports");
            assertThat(q.lagSeconds()).isEqualTo(12.34);
            assertThat(q.startsInWindow()).isEqualTo(40);
        }

        @Test
        void aNameIsAlwaysOnePathSegment() throws Exception {
            answer(422, "{\"error\": \"name 'a/b' is not a valid queue name\", \"field\": \"name\", "
                    + "\"code\": \"validation_failed\"}");

            assertThatThrownBy(() -> client.pauseQueue("a/b"))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.field()).isEqualTo("name");
                        assertThat(e.code()).isEqualTo("validation_failed");
                    });
            assertThat(request().getTarget()).isEqualTo("/api/queues/a%2Fb/pause");
            assertThatThrownBy(() -> client.queue("")).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void configureQueuePutsOnlyTheLimitsTheUpdateSets() throws Exception {
            answer(200, QUEUE);
            answer(200, QUEUE);
            answer(200, QUEUE);
            answer(200, QUEUE);

            Queue both = client.configureQueue("reports", QueueUpdate.create().maxRunning(2).rateLimit(100, 60));
            client.configureQueue("reports", QueueUpdate.create().maxRunning(5));
            client.configureQueue("reports", QueueUpdate.create().clearMaxRunning().clearRateLimit());
            client.configureQueue("reports", QueueUpdate.create());

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("PUT");
            assertThat(r.getTarget()).isEqualTo("/api/queues/reports");
            assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
            assertThat(r.getBody().utf8()).isEqualTo("{\"max_running\":2,\"rate_limit\":{\"count\":100,\"per_seconds\":60}}");
            assertThat(request().getBody().utf8()).isEqualTo("{\"max_running\":5}");
            assertThat(request().getBody().utf8()).isEqualTo("{\"max_running\":null,\"rate_limit\":null}");
            assertThat(request().getBody().utf8()).isEqualTo("{}");
            assertThat(both.maxRunning()).isEqualTo(2);
            assertThat(both.rateLimit()).isEqualTo(new Queue.RateLimit(100, 60));
        }

        @Test
        void pauseAndResumePostToTheirActionRoutesWithoutABody() throws Exception {
            answer(200, QUEUE);
            answer(200, QUEUE.replace("\"paused\": true", "\"paused\": false"));

            assertThat(client.pauseQueue("reports").paused()).isTrue();
            assertThat(client.resumeQueue("reports").paused()).isFalse();

            RecordedRequest pause = request();
            assertThat(pause.getMethod()).isEqualTo("POST");
            assertThat(pause.getTarget()).isEqualTo("/api/queues/reports/pause");
            assertThat(pause.getBody().size()).isZero();
            assertThat(request().getTarget()).isEqualTo("/api/queues/reports/resume");
        }

        @Test
        void aRefusedLimitCarriesTheFieldTheServerNamed() {
            answer(422, "{\"error\": \"rate_limit.count must be between 1 and 1000000, was 0\", "
                    + "\"field\": \"rate_limit.count\"}");

            assertThatThrownBy(() -> client.configureQueue("reports", QueueUpdate.create().rateLimit(0, 60)))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.field()).isEqualTo("rate_limit.count");
                        assertThat(e.error()).contains("between 1 and 1000000");
                    });
        }

        @Test
        void anUpdateShowsWhatItWouldSend() {
            QueueUpdate update = QueueUpdate.create().maxRunning(3).clearRateLimit();

            assertThat(update.body()).containsEntry("max_running", 3).containsEntry("rate_limit", null).hasSize(2);
            assertThat(update).hasToString("QueueUpdate{max_running=3, rate_limit=null}");
            assertThatThrownBy(() -> client.configureQueue("reports", null)).isInstanceOf(NullPointerException.class);
        }
    }

    static final String TENANT = """
            {"name": "acme", "weight": 3, "max_running": 20, "rate_limit": {"count": 100, "per_seconds": 60},
             "pending": 7, "running": 2, "starts_in_window": 40, "a_field_added_later": true}""";

    @Nested
    class Tenants {
        @Test
        void tenantsReadsTheListEnvelope() throws Exception {
            answer(200, "{\"items\": [" + TENANT + ", {\"name\": \"default\", \"weight\": 1, "
                    + "\"max_running\": null, \"rate_limit\": null, \"pending\": 0, \"running\": 0, "
                    + "\"starts_in_window\": 0}]}");

            List<Tenant> tenants = client.tenants();

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("GET");
            assertThat(r.getTarget()).isEqualTo("/api/tenants");
            assertThat(tenants).containsExactly(new Tenant("acme", 3, 20, new Tenant.RateLimit(100, 60), 7, 2, 40),
                    new Tenant("default", 1, null, null, 0, 0, 0));
        }

        @Test
        void tenantsOfAnEmptyOrNullListIsEmpty() {
            answer(200, "{\"items\": []}");
            answer(200, "{\"items\": null}");

            assertThat(client.tenants()).isEmpty();
            assertThat(client.tenants()).isEmpty();
        }

        @Test
        void tenantReadsOneTenantByItsEncodedName() throws Exception {
            answer(200, TENANT);

            Tenant t = client.tenant("acme.eu");

            assertThat(request().getTarget()).isEqualTo("/api/tenants/acme.eu");
            assertThat(t.weight()).isEqualTo(3);
            assertThat(t.startsInWindow()).isEqualTo(40);
        }

        @Test
        void aNameIsAlwaysOnePathSegment() throws Exception {
            answer(422, "{\"error\": \"name 'a/b' is not a tenant name\", \"field\": \"name\", "
                    + "\"code\": \"validation_failed\"}");

            assertThatThrownBy(() -> client.tenant("a/b"))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.field()).isEqualTo("name");
                        assertThat(e.code()).isEqualTo("validation_failed");
                    });
            assertThat(request().getTarget()).isEqualTo("/api/tenants/a%2Fb");
            assertThatThrownBy(() -> client.tenant("")).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void configureTenantPutsOnlyTheSettingsTheUpdateSets() throws Exception {
            for (int i = 0; i < 4; i++) {
                answer(200, TENANT);
            }

            Tenant all = client.configureTenant("acme", TenantUpdate.create().weight(3).maxRunning(20)
                    .rateLimit(100, 60));
            client.configureTenant("acme", TenantUpdate.create().weight(5));
            client.configureTenant("acme", TenantUpdate.create().resetWeight().clearMaxRunning().clearRateLimit());
            client.configureTenant("acme", TenantUpdate.create());

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("PUT");
            assertThat(r.getTarget()).isEqualTo("/api/tenants/acme");
            assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
            assertThat(r.getBody().utf8()).isEqualTo("{\"weight\":3,\"max_running\":20,\"rate_limit\":"
                    + "{\"count\":100,\"per_seconds\":60}}");
            assertThat(request().getBody().utf8()).isEqualTo("{\"weight\":5}");
            assertThat(request().getBody().utf8()).isEqualTo("{\"weight\":null,\"max_running\":null,"
                    + "\"rate_limit\":null}");
            assertThat(request().getBody().utf8()).isEqualTo("{}");
            assertThat(all.rateLimit()).isEqualTo(new Tenant.RateLimit(100, 60));
        }

        @Test
        void aRefusalCarriesTheCodeAndFieldTheServerNamed() {
            answer(422, "{\"error\": \"weight must be between 1 and 1000, or null for 1, was 0\", "
                    + "\"field\": \"weight\", \"code\": \"validation_failed\"}");
            answer(403, "{\"error\": \"this token acts in tenant acme only\", \"code\": \"tenant_forbidden\"}");

            assertThatThrownBy(() -> client.configureTenant("acme", TenantUpdate.create().weight(0)))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.field()).isEqualTo("weight");
                        assertThat(e.error()).contains("between 1 and 1000");
                    });
            assertThatThrownBy(() -> client.tenants())
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(403);
                        assertThat(e.code()).isEqualTo("tenant_forbidden");
                    });
        }

        @Test
        void anUpdateShowsWhatItWouldSend() {
            TenantUpdate update = TenantUpdate.create().weight(2).clearRateLimit();

            assertThat(update.body()).containsEntry("weight", 2).containsEntry("rate_limit", null).hasSize(2);
            assertThat(update).hasToString("TenantUpdate{weight=2, rate_limit=null}");
            assertThatThrownBy(() -> client.configureTenant("acme", null)).isInstanceOf(NullPointerException.class);
        }
    }

    @Nested
    class Operations {
        @Test
        void statsCountsRunsByStatus() throws Exception {
            answer(200, "{\"pending\": 1, \"running\": 2, \"succeeded\": 30, \"dead\": 4, \"cancelled\": 5}");

            Stats stats = client.stats();

            RecordedRequest r = request();
            assertThat(r.getMethod()).isEqualTo("GET");
            assertThat(r.getTarget()).isEqualTo("/api/stats");
            assertThat(stats).isEqualTo(new Stats(1, 2, 30, 4, 5));
            assertThat(stats.total()).isEqualTo(42);
        }

        @Test
        void nodesReadsTheItemsEnvelope() throws Exception {
            answer(200, """
                    {"items": [{"worker_id": "w1", "roles": ["api", "scheduler", "worker"], "version": "0.1.0",
                      "started_at": "2026-07-01T09:00:00Z", "last_seen_at": "2026-07-01T09:30:00Z",
                      "running": 3, "leader": true}]}""");

            List<Node> nodes = client.nodes();

            assertThat(request().getTarget()).isEqualTo("/api/nodes");
            assertThat(nodes).containsExactly(new Node("w1", List.of("api", "scheduler", "worker"), "0.1.0",
                    Instant.parse("2026-07-01T09:00:00Z"), Instant.parse("2026-07-01T09:30:00Z"), 3, true));
        }

        @Test
        void nodesReadHowEachNodeContainsItsJobsAndItsJobUser() throws Exception {
            answer(200, """
                    {"items": [{"worker_id": "w1", "roles": ["worker"], "version": "0.1.0",
                      "started_at": "2026-07-01T09:00:00Z", "last_seen_at": "2026-07-01T09:30:00Z",
                      "running": 0, "leader": false, "status": "live", "containment": "pid-namespace",
                      "job_user": "nobody"}]}""");

            Node node = client.nodes().get(0);

            assertThat(node.containment()).isEqualTo("pid-namespace");
            assertThat(node.jobUser()).isEqualTo("nobody");
        }

        @Test
        void nodesAlsoReadsABareArrayWithOtherNamesForTheCountAndTheLead() {
            answer(200, "[{\"worker_id\": \"w2\", \"roles\": [\"worker\"], \"last_seen_at\": \"2026-07-01T09:30:00Z\","
                    + " \"running_count\": 7, \"is_leader\": false}]");

            Node node = client.nodes().get(0);

            assertThat(node.workerId()).isEqualTo("w2");
            assertThat(node.running()).isEqualTo(7);
            assertThat(node.leader()).isFalse();
        }

        @Test
        void healthReadsTheStatus() throws Exception {
            answer(200, "{\"status\": \"ok\"}");

            assertThat(client.health()).isEqualTo("ok");
            assertThat(request().getTarget()).isEqualTo("/healthz");
        }

        @Test
        void readyIsTrueOn200AndFalseWithTheReasonOn503() throws Exception {
            answer(200, "{\"status\": \"ready\"}");
            answer(503, "{\"error\": \"database unreachable\"}");

            assertThat(client.ready()).isEqualTo(new Readiness(true, "ready"));
            assertThat(client.ready()).isEqualTo(new Readiness(false, "database unreachable"));
            assertThat(request().getTarget()).isEqualTo("/readyz");
        }

        @Test
        void metricsReturnsThePrometheusText() throws Exception {
            server.enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type", "text/plain")
                    .body("# TYPE x counter\nx 1\n").build());

            assertThat(client.metrics()).contains("x 1");
            RecordedRequest r = request();
            assertThat(r.getTarget()).isEqualTo("/metrics");
            assertThat(r.getHeaders().get("Accept")).isEqualTo("text/plain");
        }
    }

    @Nested
    class Errors {
        @Test
        void aValidationErrorCarriesTheStatusTheMessageAndTheField() {
            answer(422, "{\"error\": \"cron_expr '* *' has 2 fields\", \"field\": \"cron_expr\"}");

            assertThatThrownBy(() -> client.submitJob(JobRequest.shell("x", "y").cron("* *").build()))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.error()).isEqualTo("cron_expr '* *' has 2 fields");
                        assertThat(e.field()).isEqualTo("cron_expr");
                        assertThat(e.isValidationFailure()).isTrue();
                        assertThat(e.getMessage()).contains("422").contains("cron_expr");
                    });
        }

        @Test
        void unknownIdsAndConflictsBecomeApiExceptionsWithoutAField() {
            answer(404, "{\"error\": \"no job job_x\"}");
            answer(409, "{\"error\": \"run run_1 is running; only dead or cancelled runs can be requeued\"}");

            assertThatThrownBy(() -> client.getJob("job_x")).isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                assertThat(e.isNotFound()).isTrue();
                assertThat(e.field()).isNull();
                assertThat(e.error()).isEqualTo("no job job_x");
            });
            assertThatThrownBy(() -> client.requeueRun("run_1")).isInstanceOfSatisfying(ForgeFlowApiException.class,
                    e -> assertThat(e.isConflict()).isTrue());
        }

        @Test
        void anAnswerThatIsNotTheApisJsonIsDescribedByItsStatusAndBody() {
            server.enqueue(new MockResponse.Builder().code(502).setHeader("Content-Type", "text/html")
                    .body("<html>bad gateway</html>").build());

            assertThatThrownBy(() -> client.stats()).isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                assertThat(e.status()).isEqualTo(502);
                assertThat(e.error()).startsWith("HTTP 502").contains("bad gateway");
            });
        }

        @Test
        void refusedCredentialsAreAuthenticationFailures() {
            answer(401, "{\"error\": \"missing or invalid API token\"}");
            answer(403, "{\"error\": \"token may not do this\"}");

            assertThatThrownBy(() -> client.stats()).isInstanceOfSatisfying(ForgeFlowApiException.class,
                    e -> assertThat(e.isAuthenticationFailure()).isTrue());
            assertThatThrownBy(() -> client.stats()).isInstanceOfSatisfying(ForgeFlowApiException.class,
                    e -> assertThat(e.isAuthenticationFailure()).isTrue());
        }

        @Test
        void aSuccessBodyThatIsNotJsonIsReported() {
            answer(200, "not json");

            assertThatThrownBy(() -> client.stats()).isInstanceOfSatisfying(ForgeFlowApiException.class,
                    e -> assertThat(e.error()).contains("not the JSON"));
        }

        @Test
        void aServerThatIsNotThereIsUnavailableNotAnApiError() throws IOException {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            // retried (a GET) without waiting, then reported
            try (ForgeFlowClient nobody = ForgeFlowClient.builder("http://127.0.0.1:" + port)
                    .retryBackoff(Duration.ZERO, Duration.ZERO).build()) {
                assertThatThrownBy(nobody::stats).isInstanceOfSatisfying(ForgeFlowUnavailableException.class, e -> {
                    assertThat(e.baseUrl()).isEqualTo("http://127.0.0.1:" + port + "/");
                    assertThat(e.getMessage()).contains("unreachable");
                });
            }
        }

        @Test
        void aServerThatDoesNotAnswerInTimeIsUnavailable() {
            server.enqueue(new MockResponse.Builder().code(200).body("{}")
                    .headersDelay(2, TimeUnit.SECONDS).build());
            try (ForgeFlowClient impatient = ForgeFlowClient.builder(server.url("/").toString())
                    .callTimeout(Duration.ofMillis(200)).build()) {
                assertThatThrownBy(impatient::stats).isInstanceOf(ForgeFlowUnavailableException.class);
            }
        }

        @Test
        void aBaseUrlThatIsNotHttpIsRejectedAtOnce() {
            assertThatThrownBy(() -> ForgeFlowClient.create("localhost:8080"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://");
        }
    }

    @Nested
    class Authentication {
        @Test
        void aTokenIsSentAsABearerOnEveryRequest() throws Exception {
            answer(200, "{\"pending\": 0, \"running\": 0, \"succeeded\": 0, \"dead\": 0, \"cancelled\": 0}");
            try (ForgeFlowClient withToken = ForgeFlowClient.builder(server.url("/").toString())
                    .token("s3cret-token").build()) {
                withToken.stats();
                assertThat(withToken.toString()).doesNotContain("s3cret");
            }

            assertThat(request().getHeaders().get("Authorization")).isEqualTo("Bearer s3cret-token");
        }

        @Test
        void withoutATokenNoAuthorizationHeaderIsSent() throws Exception {
            answer(200, "{\"pending\": 0, \"running\": 0, \"succeeded\": 0, \"dead\": 0, \"cancelled\": 0}");

            client.stats();

            assertThat(request().getHeaders().get("Authorization")).isNull();
        }

        @Test
        void aBaseUrlWithAPathPrefixKeepsIt() throws Exception {
            answer(200, "{\"pending\": 0, \"running\": 0, \"succeeded\": 0, \"dead\": 0, \"cancelled\": 0}");
            try (ForgeFlowClient prefixed = ForgeFlowClient.create(server.url("/forgeflow").toString())) {
                prefixed.stats();
            }

            assertThat(request().getTarget()).isEqualTo("/forgeflow/api/stats");
        }
    }

    @Test
    void submitJobSendsTheQueueFieldsAndReadsThemBack() throws Exception {
        answer(201, JOB.replace("\"status\": \"active\"", "\"queue\": \"billing\", \"concurrency_key\": \"ledger\", "
                + "\"max_concurrent\": 2, \"overlap\": \"skip\", \"status\": \"active\""));

        Job job = client.submitJob(JobRequest.shell("nightly", "echo hi").cron("0 3 * * *").queue("billing")
                .concurrency("ledger", 2).overlap("skip").build()).job();

        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree("""
                {"name": "nightly", "executor": "shell", "payload": {"command": "echo hi"}, "cron_expr": "0 3 * * *",
                 "queue": "billing", "concurrency_key": "ledger", "max_concurrent": 2, "overlap": "skip"}"""));
        assertThat(job.queue()).isEqualTo("billing");
        assertThat(job.concurrencyKey()).isEqualTo("ledger");
        assertThat(job.maxConcurrent()).isEqualTo(2);
        assertThat(job.overlap()).isEqualTo("skip");
    }

    @Test
    void aJobFromAServerWithoutQueueFieldsReadsAsDefaultQueueAndAllow() {
        answer(200, JOB);

        Job job = client.getJob("job_1");

        assertThat(job.queue()).isEqualTo(Job.DEFAULT_QUEUE);
        assertThat(job.concurrencyKey()).isNull();
        assertThat(job.maxConcurrent()).isNull();
        assertThat(job.overlap()).isEqualTo(Job.ALLOW);
    }

    @Test
    void theConstructorsWithoutQueueFieldsStillWork() {
        Job job = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                Instant.EPOCH, Instant.EPOCH);
        assertThat(job.queue()).isEqualTo("default");
        assertThat(job.overlap()).isEqualTo("allow");
        assertThat(job.maxConcurrent()).isNull();

        JobRequest request = new JobRequest("n", "shell", null, null, null, null, null, null, null, null, null);
        assertThat(request.queue()).isNull();
        assertThat(request.maxConcurrent()).isNull();
    }

    @Test
    void aRetryPolicyIsSentAsAnObjectAndReadBackOnJobsAndRuns() throws Exception {
        answer(201, JOB.replace("\"a_field_added_later\"", "\"retry\": {\"base_seconds\": 1, \"max_seconds\": 2}, "
                + "\"a_field_added_later\""));

        Job job = client.submitJob(JobRequest.shell("n", "true").retry(1, 2).build()).job();

        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree("""
                {"name": "n", "executor": "shell", "payload": {"command": "true"},
                 "retry": {"base_seconds": 1, "max_seconds": 2}}"""));
        assertThat(job.retry()).isEqualTo(new Retry(1, 2));

        answer(200, RUN.replace("\"cancel_requested\"", "\"retry\": {\"base_seconds\": 30, \"max_seconds\": null}, "
                + "\"cancel_requested\""));
        assertThat(client.getRun("run_9").retry()).isEqualTo(new Retry(30, null));
        answer(200, JOB);
        assertThat(client.getJob("job_1").retry()).as("a server that predates it, or a job without one").isNull();
        request();
        request();

        answer(200, JOB);
        client.updateJob("j-1", JobUpdate.create().retry(5, null).priority(1));
        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree(
                "{\"retry\": {\"base_seconds\": 5}, \"priority\": 1}"));
        answer(200, JOB);
        client.updateJob("j-1", JobUpdate.create().retry(null, null));
        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree(
                "{\"retry\": null}"));
    }

    @Test
    void maxConcurrentAloneLeavesTheKeyOut() throws Exception {
        answer(201, JOB);

        client.submitJob(JobRequest.shell("n", "true").maxConcurrent(1).build());

        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree("""
                {"name": "n", "executor": "shell", "payload": {"command": "true"}, "max_concurrent": 1}"""));
    }

    @Test
    void jobRequestBuilderFillsEveryField() {
        JobRequest request = JobRequest.builder("n", "http").payload(Map.of("url", "u")).cron("@daily")
                .timezone("UTC").priority(1).maxAttempts(2).timeoutSeconds(3).catchUp("skip").idempotencyKey("k")
                .build();

        assertThat(request).isEqualTo(new JobRequest("n", "http", Map.of("url", "u"), "@daily", null, "UTC", 1, 2, 3,
                "skip", "k"));
        assertThat(JobRequest.builder("n", "http").queue("q").concurrencyKey("k").maxConcurrent(4)
                .overlap("queue_one").build())
                .isEqualTo(new JobRequest("n", "http", null, null, null, null, null, null, null, null, null, "q", "k", 4,
                        "queue_one"));
    }
}
