package io.forgeflow.client;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Workflows (API.md "Workflows"): parents on submission, the linked jobs of a job, batches; the shapes of API.md. */
class WorkflowsTest {
    static final String CHILD = """
            {"id": "job_c", "name": "report", "executor": "shell", "payload": {"command": "echo d"}, "cron_expr": null,
             "run_at": null, "timezone": "UTC", "priority": 5, "max_attempts": 3, "timeout_seconds": 300,
             "catch_up": "skip", "idempotency_key": null, "status": "active", "next_run_at": null,
             "created_at": "2026-12-02T07:00:00Z", "updated_at": "2026-12-02T07:00:00Z", "queue": "default",
             "overlap": "allow", "labels": {}, "depends_on": ["job_a", "job_b"], "on_parent_failure": "wait",
             "batch_id": "batch_1",
             "parents": [{"id": "job_a", "name": "load-1", "status": "completed", "run_status": "succeeded"},
                         {"id": "job_b", "name": "load-2", "status": "completed", "run_status": "dead",
                          "a_field_added_later": true}],
             "children": [{"id": "job_n", "name": "notify", "status": "active", "run_status": null}],
             "a_field_added_later": 1}""";
    static final String BATCH = """
            {"id": "batch_1", "name": "import-2026-12-02", "idempotency_key": "import-2026-12-02",
             "created_at": "2026-12-02T07:00:00Z", "completed_at": null, "total": 4, "waiting": 3, "pending": 1,
             "running": 0, "succeeded": 0, "dead": 0, "cancelled": 0, "on_complete_job_id": "job_n", "status": "open",
             "job_ids": ["job_1", "job_2", "job_3", "job_4"],
             "refs": {"a": "job_1", "b": "job_2", "c": "job_3", "d": "job_4"}, "a_field_added_later": [1]}""";

    MockWebServer server;
    ForgeFlowClient client;

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start();
        client = ForgeFlowClient.create(server.url("/").toString());
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

    @Test
    void submitJobSendsItsParentsAndPolicy() throws Exception {
        answer(201, CHILD);

        client.submitJob(JobRequest.shell("report", "echo d").dependsOn("job_a").dependsOn(List.of("job_b"))
                .onParentFailure(Job.ON_PARENT_FAILURE_WAIT).build());

        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree("""
                {"name": "report", "executor": "shell", "payload": {"command": "echo d"},
                 "depends_on": ["job_a", "job_b"], "on_parent_failure": "wait"}"""));
    }

    @Test
    void aJobWithoutParentsSendsNoWorkflowField() throws Exception {
        answer(201, CHILD);

        client.submitJob(JobRequest.shell("plain", "true").build());

        String body = request().getBody().utf8();
        assertThat(body).doesNotContain("depends_on").doesNotContain("on_parent_failure");
    }

    @Test
    void getJobReadsItsParentsChildrenAndBatch() throws Exception {
        answer(200, CHILD);

        Job job = client.getJob("job_c");

        assertThat(request().getTarget()).isEqualTo("/api/jobs/job_c");
        assertThat(job.dependsOn()).containsExactly("job_a", "job_b");
        assertThat(job.onParentFailure()).isEqualTo("wait");
        assertThat(job.batchId()).isEqualTo("batch_1");
        assertThat(job.parents()).containsExactly(new LinkedJob("job_a", "load-1", "completed", "succeeded"),
                new LinkedJob("job_b", "load-2", "completed", "dead"));
        assertThat(job.children()).containsExactly(new LinkedJob("job_n", "notify", "active", null));
        assertThat(job.childrenOrEmpty()).hasSize(1);
    }

    @Test
    void aJobInAListOrFromAnOlderServerHasNoParentsAndNoLinks() {
        answer(200, ForgeFlowClientTest.JOB);

        Job job = client.getJob("job_1");

        assertThat(job.dependsOn()).isEmpty();
        assertThat(job.onParentFailure()).isNull();
        assertThat(job.batchId()).isNull();
        assertThat(job.parents()).as("not sent").isNull();
        assertThat(job.parentsOrEmpty()).isEmpty();
        assertThat(job.childrenOrEmpty()).isEmpty();
    }

    @Test
    void aWaitingRunIsReadAndListedByItsStatus() throws Exception {
        answer(200, """
                {"items": [{"id": "run_w", "job_id": "job_c", "status": "waiting", "attempt": 0, "max_attempts": 3,
                 "priority": 5, "scheduled_for": "2026-12-02T07:00:00Z", "started_at": null, "finished_at": null,
                 "worker_id": null, "lease_expires_at": null, "output": null, "error": null}],
                 "next_cursor": null}""");

        Page<Run> page = client.listRuns(RunFilter.create().status(Run.WAITING), null, null);

        assertThat(request().getTarget()).isEqualTo("/api/runs?status=waiting");
        assertThat(page.items()).singleElement().satisfies(r -> assertThat(r.status()).isEqualTo(Run.WAITING));
    }

    @Test
    void statsCountWaitingRunsToo() {
        answer(200, "{\"waiting\": 6, \"pending\": 1, \"running\": 2, \"succeeded\": 30, \"dead\": 4, \"cancelled\": 5}");

        Stats stats = client.stats();

        assertThat(stats).isEqualTo(new Stats(1, 2, 30, 4, 5, 6));
        assertThat(stats.total()).isEqualTo(48);
    }

    @Test
    void submitBatchPostsTheJobsWithTheirRefsAndReadsTheIds() throws Exception {
        answer(201, BATCH);

        BatchSubmitResult result = client.submitBatch(BatchRequest.builder().name("import-2026-12-02")
                .idempotencyKey("import-2026-12-02")
                .job("a", JobRequest.shell("extract", "echo a").build())
                .job("b", JobRequest.shell("load-1", "echo b").dependsOn("a").build())
                .job("c", JobRequest.shell("load-2", "echo c").dependsOn("a").build())
                .job("d", JobRequest.shell("report", "echo d").dependsOn("b", "c").onParentFailure("run").build())
                .onComplete(JobRequest.http("notify", "https://example.com/done").build())
                .build());

        RecordedRequest r = request();
        assertThat(r.getMethod()).isEqualTo("POST");
        assertThat(r.getTarget()).isEqualTo("/api/batches");
        assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
        assertThat(client.json().readTree(r.getBody().utf8())).isEqualTo(client.json().readTree("""
                {"name": "import-2026-12-02", "idempotency_key": "import-2026-12-02",
                 "jobs": [
                   {"ref": "a", "name": "extract", "executor": "shell", "payload": {"command": "echo a"}},
                   {"ref": "b", "name": "load-1", "executor": "shell", "payload": {"command": "echo b"}, "depends_on": ["a"]},
                   {"ref": "c", "name": "load-2", "executor": "shell", "payload": {"command": "echo c"}, "depends_on": ["a"]},
                   {"ref": "d", "name": "report", "executor": "shell", "payload": {"command": "echo d"},
                    "depends_on": ["b", "c"], "on_parent_failure": "run"}],
                 "on_complete": {"name": "notify", "executor": "http", "payload": {"url": "https://example.com/done"}}}"""));
        assertThat(result.created()).isTrue();
        Batch batch = result.batch();
        assertThat(batch.id()).isEqualTo("batch_1");
        assertThat(batch.jobIds()).containsExactly("job_1", "job_2", "job_3", "job_4");
        assertThat(batch.refs()).containsExactly(Map.entry("a", "job_1"), Map.entry("b", "job_2"),
                Map.entry("c", "job_3"), Map.entry("d", "job_4"));
        assertThat(batch.total()).isEqualTo(4);
        assertThat(batch.waiting()).isEqualTo(3);
        assertThat(batch.pending()).isEqualTo(1);
        assertThat(batch.onCompleteJobId()).isEqualTo("job_n");
        assertThat(batch.isCompleted()).isFalse();
        assertThat(batch.createdAt()).isEqualTo(Instant.parse("2026-12-02T07:00:00Z"));
    }

    @Test
    void aReplayedBatchIsNotCreated() {
        answer(200, BATCH);

        BatchSubmitResult result = client.submitBatch(BatchRequest.builder().idempotencyKey("import-2026-12-02")
                .job(JobRequest.shell("extract", "echo a").build()).build());

        assertThat(result.created()).isFalse();
        assertThat(result.batch().id()).isEqualTo("batch_1");
    }

    @Test
    void aBatchWrittenByHandIsSentAsItIs() throws Exception {
        answer(201, BATCH);
        String text = """
                {"jobs": [{"ref": "a", "name": "x", "executor": "shell", "payload": {"command": "true"},
                           "a_field_the_server_judges": 1}], "name": "by-hand"}""";

        BatchRequest request = BatchRequest.fromJson(text);
        client.submitBatch(request);

        assertThat(request.size()).isEqualTo(1);
        assertThat(client.json().readTree(request().getBody().utf8())).isEqualTo(client.json().readTree(text));
    }

    @Test
    void aBatchThatIsNotAJsonObjectIsRefusedBeforeSending() {
        assertThatThrownBy(() -> BatchRequest.fromJson("[1, 2]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JSON object");
        assertThatThrownBy(() -> BatchRequest.fromJson("{\"jobs\": [")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not JSON");
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void getBatchReadsACompletedBatchWithoutIds() throws Exception {
        answer(200, """
                {"id": "batch_1", "name": null, "idempotency_key": null, "created_at": "2026-12-02T07:00:00Z",
                 "completed_at": "2026-12-02T07:01:00Z", "total": 4, "waiting": 0, "pending": 0, "running": 0,
                 "succeeded": 2, "dead": 1, "cancelled": 1, "on_complete_job_id": null, "status": "completed"}""");

        Batch batch = client.getBatch("batch 1");

        assertThat(request().getTarget()).isEqualTo("/api/batches/batch%201");
        assertThat(batch.isCompleted()).isTrue();
        assertThat(batch.ended()).isEqualTo(4);
        assertThat(batch.completedAt()).isEqualTo(Instant.parse("2026-12-02T07:01:00Z"));
        assertThat(batch.jobIds()).isEmpty();
        assertThat(batch.refs()).isEmpty();
        assertThat(batch.onCompleteJobId()).isNull();
    }

    @Test
    void batchErrorsAreMappedAsEveryOther() {
        answer(422, "{\"error\": \"jobs[1].depends_on: a cycle: b -> a -> b\", \"field\": \"jobs[1].depends_on\","
                + " \"code\": \"validation_failed\"}");
        answer(409, "{\"error\": \"idempotency_key 'k' was used with another body\", \"field\": \"idempotency_key\","
                + " \"code\": \"idempotency_conflict\"}");
        answer(404, "{\"error\": \"no batch batch_x\", \"code\": \"not_found\"}");
        BatchRequest request = BatchRequest.builder().job(JobRequest.shell("x", "true").build()).build();

        assertThatThrownBy(() -> client.submitBatch(request)).isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
            assertThat(e.isValidationFailure()).isTrue();
            assertThat(e.field()).isEqualTo("jobs[1].depends_on");
        });
        assertThatThrownBy(() -> client.submitBatch(request)).isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
            assertThat(e.isConflict()).isTrue();
            assertThat(e.code()).isEqualTo("idempotency_conflict");
        });
        assertThatThrownBy(() -> client.getBatch("batch_x")).isInstanceOfSatisfying(ForgeFlowApiException.class,
                e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void theConstructorsWithoutWorkflowFieldsStillWork() {
        Job job = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                null, null, null, null, null, null, null, null, Map.of());
        assertThat(job.dependsOn()).isEmpty();
        assertThat(job.parents()).isNull();
        JobRequest request = new JobRequest("n", "shell", Map.of(), null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, Map.of());
        assertThat(request.dependsOn()).isNull();
        assertThat(request.onParentFailure()).isNull();
    }
}
