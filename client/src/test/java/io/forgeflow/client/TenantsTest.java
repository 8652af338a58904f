package io.forgeflow.client;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tenants (issue 42) on the wire: the body field, the X-ForgeFlow-Tenant header, the ?tenant= filter, the answers. */
class TenantsTest {
    static final String JOB = """
            {"id": "job_1", "name": "sync", "executor": "shell", "payload": {"command": "true"}, "timezone": "UTC",
             "priority": 5, "max_attempts": 3, "timeout_seconds": 300, "catch_up": "skip", "status": "active",
             "created_at": "2026-07-01T09:30:00Z", "updated_at": "2026-07-01T09:30:00Z"%s}""";
    static final String RUN = """
            {"id": "run_1", "job_id": "job_1", "status": "pending", "attempt": 0, "max_attempts": 3, "priority": 5,
             "scheduled_for": "2026-07-01T09:30:00Z", "output": ""%s}""";
    static final String BATCH = """
            {"id": "batch_1", "name": "import", "created_at": "2026-07-01T09:30:00Z", "total": 1, "waiting": 0,
             "pending": 1, "running": 0, "succeeded": 0, "dead": 0, "cancelled": 0, "status": "open",
             "job_ids": ["job_1"], "refs": {"a": "job_1"}%s}""";

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

    RecordedRequest taken() throws InterruptedException {
        RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        return r;
    }

    @Test
    void aSubmissionSendsItsTenantAndTheJobNamesIt() throws Exception {
        answer(201, JOB.formatted(", \"tenant\": \"acme\""));

        SubmitResult result = client.submitJob(JobRequest.shell("sync", "true").tenant("acme").build());

        RecordedRequest sent = taken();
        assertThat(client.json().readTree(sent.getBody().utf8())).isEqualTo(client.json().readTree("""
                {"name": "sync", "executor": "shell", "payload": {"command": "true"}, "tenant": "acme"}"""));
        assertThat(sent.getHeaders().get(ForgeFlowClient.TENANT_HEADER)).isNull();
        assertThat(result.job().tenant()).isEqualTo("acme");
    }

    @Test
    void aSubmissionWithoutATenantSendsNoField() throws Exception {
        answer(201, JOB.formatted(", \"tenant\": \"default\""));

        Job job = client.submitJob(JobRequest.shell("sync", "true").build()).job();

        assertThat(client.json().readTree(taken().getBody().utf8()).has("tenant")).isFalse();
        assertThat(job.tenant()).isEqualTo("default");
    }

    @Test
    void anAnswerWithoutTenantReadsAsNullNotDefault() {
        answer(200, JOB.formatted(""));
        answer(200, RUN.formatted(""));
        answer(200, BATCH.formatted(""));

        assertThat(client.getJob("job_1").tenant()).isNull();
        assertThat(client.getRun("run_1").tenant()).isNull();
        assertThat(client.getBatch("batch_1").tenant()).isNull();
    }

    @Test
    void runsBatchesAndPagesReadTheirTenant() throws Exception {
        answer(200, RUN.formatted(", \"tenant\": \"acme\""));
        answer(200, "{\"items\": [" + RUN.formatted(", \"tenant\": \"globex\"") + "], \"next_cursor\": null, "
                + "\"has_more\": false}");
        answer(200, "{\"items\": [" + JOB.formatted(", \"tenant\": \"acme\"") + "], \"next_cursor\": null, "
                + "\"has_more\": false}");
        answer(201, BATCH.formatted(", \"tenant\": \"acme\""));

        assertThat(client.getRun("run_1").tenant()).isEqualTo("acme");
        assertThat(client.listRuns(null, null, null, null).items()).extracting(Run::tenant).containsExactly("globex");
        assertThat(client.listJobs().items()).extracting(Job::tenant).containsExactly("acme");
        assertThat(client.submitBatch(BatchRequest.builder().job("a", JobRequest.shell("a", "true").build()).build())
                .batch().tenant()).isEqualTo("acme");
    }

    @Test
    void theClientsTenantIsSentAsAHeaderOnEveryRequest() throws Exception {
        try (ForgeFlowClient acme = ForgeFlowClient.builder(server.url("/").toString()).token("t0k")
                .tenant(" acme ").build()) {
            answer(201, JOB.formatted(", \"tenant\": \"acme\""));
            answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");
            answer(200, RUN.formatted(", \"tenant\": \"acme\""));
            answer(200, "{\"status\": \"ok\"}");

            acme.submitJob(JobRequest.shell("sync", "true").build());
            acme.listRuns(null, null, null, null);
            acme.requeueRun("run_1");
            acme.health();

            for (int i = 0; i < 4; i++) {
                RecordedRequest r = taken();
                assertThat(r.getHeaders().get(ForgeFlowClient.TENANT_HEADER)).as(r.getTarget()).isEqualTo("acme");
                assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer t0k");
            }
            assertThat(acme.tenant()).isEqualTo("acme");
        }
    }

    @Test
    void withoutATenantNoHeaderIsSent() throws Exception {
        answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");

        client.listJobs();

        assertThat(taken().getHeaders().get(ForgeFlowClient.TENANT_HEADER)).isNull();
        assertThat(client.tenant()).isNull();
        assertThat(ForgeFlowClient.builder("http://127.0.0.1:1").tenant("  ").build().tenant()).isNull();
    }

    @Test
    void withTenantActsInAnotherTenantForItsCallsOnly() throws Exception {
        try (ForgeFlowClient acme = ForgeFlowClient.builder(server.url("/").toString()).tenant("acme").build()) {
            answer(200, JOB.formatted(", \"tenant\": \"globex\""));
            answer(200, JOB.formatted(", \"tenant\": \"acme\""));
            answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");

            ForgeFlowClient globex = acme.withTenant("globex");
            assertThat(globex.getJob("job_1").tenant()).isEqualTo("globex");
            assertThat(acme.getJob("job_1").tenant()).isEqualTo("acme");
            acme.withTenant(null).listJobs();
            globex.close(); // leaves acme's connections open

            assertThat(taken().getHeaders().get(ForgeFlowClient.TENANT_HEADER)).isEqualTo("globex");
            assertThat(taken().getHeaders().get(ForgeFlowClient.TENANT_HEADER)).isEqualTo("acme");
            assertThat(taken().getHeaders().get(ForgeFlowClient.TENANT_HEADER)).isNull();

            answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");
            acme.listJobs();
            assertThat(taken().getHeaders().get(ForgeFlowClient.TENANT_HEADER)).isEqualTo("acme");
        }
    }

    @Test
    void aTenantThatCannotBeAHeaderIsRefusedAtOnce() {
        assertThatThrownBy(() -> ForgeFlowClient.builder("http://127.0.0.1:1").tenant("acme\nX-Other: 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(ForgeFlowClient.TENANT_HEADER);
        assertThatThrownBy(() -> client.withTenant("ac\u00e9me")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void listFiltersSendTheTenantAsAQueryParameter() throws Exception {
        answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");
        answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");
        answer(200, "{\"items\": [], \"next_cursor\": null, \"has_more\": false}");

        client.listJobs(JobFilter.create().tenant("acme").status("active"), 10, null);
        client.listRuns(RunFilter.create().tenant("acme"), null, null);
        client.listRuns(RunFilter.create().status("dead"), null, null);

        RecordedRequest jobs = taken();
        assertThat(jobs.getUrl().queryParameter("tenant")).isEqualTo("acme");
        assertThat(jobs.getUrl().queryParameter("status")).isEqualTo("active");
        assertThat(taken().getUrl().encodedQuery()).isEqualTo("tenant=acme");
        assertThat(taken().getUrl().queryParameterNames()).containsExactly("status");
    }

    @Test
    void anInvalidOrForbiddenTenantIsTheServersApiError() {
        answer(422, "{\"error\": \"tenant must match [a-z0-9_.-]{1,63}\", \"field\": \"tenant\", "
                + "\"code\": \"validation_failed\"}");
        answer(403, "{\"error\": \"this token acts in tenant acme only\", \"code\": \"tenant_forbidden\"}");

        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("x", "true").tenant("ACME!").build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).isEqualTo("tenant");
                    assertThat(e.code()).isEqualTo("validation_failed");
                });
        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("x", "true").tenant("globex").build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(403);
                    assertThat(e.code()).isEqualTo("tenant_forbidden");
                });
    }

    @Test
    void aBatchSendsItsTenantAndEachJobsOwn() {
        BatchRequest batch = BatchRequest.builder().tenant("acme")
                .job("a", JobRequest.shell("a", "true").build())
                .job("b", JobRequest.shell("b", "true").tenant("acme").build())
                .onComplete(JobRequest.shell("done", "true").tenant("acme").build()).build();

        assertThat(batch.body().get("tenant").asText()).isEqualTo("acme");
        assertThat(batch.body().get("jobs").get(0).has("tenant")).isFalse();
        assertThat(batch.body().get("jobs").get(1).get("tenant").asText()).isEqualTo("acme");
        assertThat(batch.body().get("on_complete").get("tenant").asText()).isEqualTo("acme");
        assertThat(BatchRequest.builder().job(JobRequest.shell("a", "true").build()).build().body().has("tenant"))
                .isFalse();
    }

    @Test
    void copiesKeepTheTenantAndTheOlderConstructorsHaveNone() {
        JobRequest request = JobRequest.shell("sync", "true").tenant("acme").build();
        assertThat(request.withNotify(null).tenant()).isEqualTo("acme");
        assertThat(request.withFlow(null, null).tenant()).isEqualTo("acme");
        assertThat(request.withDependsOn(java.util.List.of("p"), null).tenant()).isEqualTo("acme");
        assertThat(request.withTenant("globex").tenant()).isEqualTo("globex");
        assertThat(request.withTenant(null).tenant()).isNull();

        Job job = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                Instant.EPOCH, Instant.EPOCH);
        Run run = new Run("r", "j", "pending", 0, 3, 5, Instant.EPOCH, null, null, null, null, "", null, null);
        assertThat(job.tenant()).isNull();
        assertThat(run.tenant()).isNull();
    }

    @Test
    void aJobWithoutTenantIsWrittenWithoutTheField() throws Exception {
        Job job = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                Instant.EPOCH, Instant.EPOCH);
        assertThat(client.json().readTree(client.json().writeValueAsString(job)).has("tenant")).isFalse();
        Job read = client.json().readValue(JOB.formatted(", \"tenant\": \"acme\""), Job.class);
        assertThat(client.json().readTree(client.json().writeValueAsString(read)).get("tenant").asText())
                .isEqualTo("acme");
    }
}
