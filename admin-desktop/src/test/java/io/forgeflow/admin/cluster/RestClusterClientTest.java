package io.forgeflow.admin.cluster;

import io.forgeflow.admin.testing.ScriptedServer;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Queue;
import io.forgeflow.client.QueueUpdate;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The adapter over real HTTP: what goes on the wire for filters and edits, and the traces read from the answers. */
class RestClusterClientTest {
    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    final ScriptedServer server = new ScriptedServer().seedDemo();
    final RestClusterClient cluster = RestClusterClient.open(server.url(), null);

    @AfterEach
    void close() {
        cluster.close();
        server.close();
    }

    /** The request line as sent, with ':' unescaped (OkHttp may send it as %3A). */
    boolean sent(String line) {
        return server.requests().stream().anyMatch(r -> r.replace("%3A", ":").equals(line));
    }

    @Test
    void jobFiltersAreQueryParametersAndEveryLabelMustMatch() {
        server.relabel(server.jobNamed("nightly-report").id(), "reports", Map.of("team", "ops", "env", "prod"));
        server.relabel(server.jobNamed("backup-db").id(), "reports", Map.of("team", "ops", "env", "dev"));

        var page = cluster.jobs(new JobQuery(Job.ACTIVE, "reports", Map.of("team", "ops", "env", "prod"), "night"),
                null, 50);

        assertThat(page.items()).extracting(Job::name).containsExactly("nightly-report");
        assertThat(sent("GET /api/jobs?status=active&queue=reports&label=env:prod&label=team:ops&name_prefix=night"
                + "&limit=50")).as(server.requests().toString()).isTrue();
    }

    @Test
    void runFiltersAreQueryParametersWithRfc3339Times() {
        String sync = server.jobNamed("sync-crm").id();
        server.relabel(sync, "crm", Map.of("team", "sales"));
        Instant after = server.now().minusSeconds(3 * 900 + 1);

        var page = cluster.runs(new RunQuery(sync, Run.SUCCEEDED, "crm", Map.of("team", "sales"), after,
                server.now(), after), "o:0", 500);

        assertThat(page.items()).hasSize(3).allMatch(r -> r.jobId().equals(sync) && r.scheduledFor().isAfter(after));
        assertThat(sent("GET /api/runs?job_id=" + sync + "&status=succeeded&queue=crm&label=team:sales"
                + "&scheduled_after=" + after + "&scheduled_before=" + server.now() + "&finished_after=" + after
                + "&limit=500&cursor=o:0")).as(server.requests().toString()).isTrue();
    }

    @Test
    void queueCallsActOnTheNamedTenantsQueueAndWithoutOneOnTheClientsOwn() {
        server.withQueue(new Queue("reports", false, null, null, 0, 0, 0, 0, 0, "default"))
                .withQueue(new Queue("reports", false, null, null, 0, 0, 0, 0, 0, "acme"));
        assertThat(cluster.queues()).extracting(q -> q.tenant() + "/" + q.name())
                .containsExactly("acme/reports", "default/reports");

        Queue acme = cluster.configureQueue("acme", "reports", QueueUpdate.create().maxRunning(3).rateLimit(10, 60));
        assertThat(acme).isEqualTo(new Queue("reports", false, 3, new Queue.RateLimit(10, 60), 0, 0, 0, 0, 0, "acme"));
        assertThat(cluster.pauseQueue("acme", "reports").paused()).isTrue();
        assertThat(server.queue("default", "reports")).isEqualTo(new Queue("reports", false, null, null, 0, 0, 0, 0, 0,
                "default"));
        assertThat(server.tenantHeaders()).containsExactly("-", "acme", "acme");

        assertThat(cluster.resumeQueue(null, "reports").tenant()).as("the client's own: none, so default")
                .isEqualTo("default");
        assertThat(server.requests()).containsSubsequence("PUT /api/queues/reports", "POST /api/queues/reports/pause",
                "POST /api/queues/reports/resume");
        assertThat(server.tenantHeaders()).last().isEqualTo("-");
        assertThatThrownBy(() -> cluster.inTenant("acme").configureQueue(null, "reports",
                QueueUpdate.create().clearMaxRunning().rateLimit(0, 60)))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).isEqualTo("rate_limit.count");
                });
        assertThat(server.tenantHeaders()).last().isEqualTo("acme");
        assertThat(server.queue("acme", "reports").maxRunning()).as("a refused request changes nothing").isEqualTo(3);
    }

    @Test
    void anUpdateIsAPatchAndKeepingPendingRunsSaysSo() {
        String id = server.jobNamed("nightly-report").id();

        Job changed = cluster.update(id, JobUpdate.create().priority(2).labels(Map.of("team", "ops")), true);

        assertThat(changed.priority()).isEqualTo(2);
        assertThat(server.job(id).labels()).isEqualTo(Map.of("team", "ops"));
        assertThat(server.requests()).contains("PATCH /api/jobs/" + id + "?pending=keep");

        assertThatThrownBy(() -> cluster.update(id, JobUpdate.create().priority(12), false))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).isEqualTo("priority");
                });
        assertThat(server.requests()).contains("PATCH /api/jobs/" + id);
    }

    @Test
    void tracesAreReadFromTheRunsTheServerSent() {
        Run running = server.runsOf(server.jobNamed("sync-crm").id()).stream()
                .filter(r -> r.status().equals(Run.RUNNING)).findFirst().orElseThrow();
        server.traceRun(running.id(), TRACE, "http://tempo.example/trace/" + TRACE);

        var listed = cluster.runs(RunQuery.ALL, null, 500).items();

        assertThat(listed).filteredOn(r -> r.id().equals(running.id())).singleElement()
                .satisfies(r -> assertThat(cluster.trace(r)).isEqualTo(new RunTrace(TRACE,
                        "http://tempo.example/trace/" + TRACE)));
        assertThat(listed).filteredOn(r -> !r.id().equals(running.id()))
                .allSatisfy(r -> assertThat(cluster.trace(r)).isEqualTo(RunTrace.NONE));
        assertThat(cluster.trace(null)).isEqualTo(RunTrace.NONE);

        server.traceRun(running.id(), TRACE, null);
        Run one = cluster.run(running.id());
        assertThat(cluster.trace(one)).as("a node without a viewer sends no link").isEqualTo(new RunTrace(TRACE, null));
    }

    @Test
    void overAClientBuiltElsewhereTracesAreReadToo() {
        server.traceRun("run_1", TRACE, null);
        try (RestClusterClient plain = new RestClusterClient(ForgeFlowClient.create(server.url()))) {
            Run run = plain.run("run_1");

            assertThat(plain.trace(run)).isEqualTo(new RunTrace(TRACE, null));
        }
    }

    // ---------------------------------------------------------------- workflows

    @Test
    void aJobsWorkflowIsReadFromItsAnswerWithParentsChildrenAndLatestRunStatuses() {
        String backup = server.jobNamed("backup-db").id();
        String nightly = server.jobNamed("nightly-report").id();
        String invoices = server.jobNamed("send-invoices").id();
        server.link(nightly, "wait", backup);
        server.link(invoices, null, nightly);
        server.addBatch("batch_1", "import", new long[] {1, 0, 0, 1, 0, 0}, null, "open", nightly);

        JobWorkflow workflow = cluster.workflow(nightly);

        assertThat(workflow.job().name()).isEqualTo("nightly-report");
        assertThat(workflow.dependsOn()).containsExactly(backup);
        assertThat(workflow.onParentFailure()).isEqualTo("wait");
        assertThat(workflow.batchId()).isEqualTo("batch_1");
        assertThat(workflow.parents()).containsExactly(new WorkflowNode(backup, "backup-db", Job.ACTIVE, Run.DEAD));
        assertThat(workflow.children()).containsExactly(new WorkflowNode(invoices, "send-invoices", Job.ACTIVE,
                Run.DEAD));
        assertThat(sent("GET /api/jobs/" + nightly)).isTrue();
    }

    @Test
    void aBackfillsProgressIsReadFromItsOwnRouteAndAnUnknownOneIsA404() {
        String nightly = server.jobNamed("nightly-report").id();
        io.forgeflow.client.Backfill made = cluster.backfill(nightly, server.now().minusSeconds(7200),
                server.now().minusSeconds(3600), "allow");

        io.forgeflow.client.Backfill read = cluster.backfillProgress(nightly, made.id());

        assertThat(read).isEqualTo(made);
        assertThat(sent("GET /api/jobs/" + nightly + "/backfill/" + made.id())).as(server.requests().toString())
                .isTrue();
        assertThatThrownBy(() -> cluster.backfillProgress(nightly, "bf_x")).isInstanceOfSatisfying(
                ForgeFlowApiException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void aBatchsProgressIsReadAndAnUnknownOneIsA404() {
        server.addBatch("batch_1", "import", new long[] {2, 1, 1, 4, 1, 1}, "job_9", "open");

        BatchProgress batch = cluster.batch("batch_1");

        assertThat(batch).isEqualTo(new BatchProgress("batch_1", "import", server.now().minusSeconds(600), null, 10,
                2, 1, 1, 4, 1, 1, "job_9", "open"));
        assertThatThrownBy(() -> cluster.batch("batch_x")).isInstanceOfSatisfying(ForgeFlowApiException.class,
                e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void aJobWithParentsIsSentWithDependsOnAndItsPolicyAndTheTokenAndA422NamesTheField() {
        server.requireToken("t0k");
        try (RestClusterClient withToken = RestClusterClient.open(server.url(), "t0k")) {
            String backup = server.jobNamed("backup-db").id();

            var result = withToken.submit(io.forgeflow.client.JobRequest.shell("after-backup", "echo ok")
                    .queue("reports").priority(2).label("team", "ops").retry(5, 60).build(),
                    new Parents(java.util.List.of(backup), "run"));

            assertThat(result.created()).isTrue();
            assertThat(server.lastSubmission()).contains("\"depends_on\":[\"" + backup + "\"]")
                    .contains("\"on_parent_failure\":\"run\"").contains("\"name\":\"after-backup\"")
                    .as("the form's other fields go too").contains("\"queue\":\"reports\"")
                    .contains("\"priority\":2").contains("\"labels\":{\"team\":\"ops\"}")
                    .contains("\"retry\":{\"base_seconds\":5,\"max_seconds\":60}");
            assertThat(server.runsOf(result.job().id())).extracting(Run::status).containsExactly("waiting");
            assertThat(withToken.workflow(result.job().id()).dependsOn()).containsExactly(backup);

            assertThatThrownBy(() -> withToken.submit(io.forgeflow.client.JobRequest.shell("orphan", "true").build(),
                    new Parents(java.util.List.of("job_404"), null)))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(422);
                        assertThat(e.field()).isEqualTo("depends_on");
                        assertThat(e.error()).isEqualTo("depends_on: no job with id job_404");
                    });
        }
    }

    @Test
    void withoutParentsTheClientsOwnSubmitSendsNoWorkflowFields() {
        cluster.submit(io.forgeflow.client.JobRequest.shell("plain", "true").build(), Parents.NONE);

        assertThat(server.lastSubmission()).doesNotContain("depends_on").doesNotContain("on_parent_failure");
    }
}
