package io.forgeflow.admin.ui;

import io.forgeflow.admin.cluster.JobQuery;
import io.forgeflow.admin.cluster.RestClusterClient;
import io.forgeflow.admin.cluster.RunQuery;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The desktop against the real thing: starts {@code server/target/forgeflow.jar} as a process on a fresh PostgreSQL
 * database (created here, dropped after) and clicks through connect, submit {@code echo hello}, and watching its run
 * succeed. Skipped when the jar has not been built. PostgreSQL is looked for at 127.0.0.1:5432 (user postgres, trust)
 * or at FORGEFLOW_E2E_POSTGRES (a JDBC URL to run CREATE DATABASE through); when there is none the node runs on its
 * embedded development database (in target/e2e-desktop-node; {@link E2eNode}).
 */
class AdminDesktopEndToEndIT extends UiTestSupport {
    private static final String TRACE_VIEWER = "http://tempo.example/trace/";
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static E2eNode node;
    private static String nodeUrl;

    @BeforeAll
    static void startNode() throws Exception {
        node = E2eNode.start("desktop", Map.of("FORGEFLOW_TRACE_URL_TEMPLATE", TRACE_VIEWER + "{trace_id}"));
        nodeUrl = node.url;
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void connectSubmitEchoHelloAndSeeItsRunSucceed(FxRobot robot) {
        openApp(nodeUrl);
        connect(robot);

        robot.clickOn("#tab-submit");
        robot.clickOn("#jobName").write("e2e-hello");
        robot.clickOn("#jobCommand").write("echo hello");
        robot.clickOn("#submitJob");
        untilText(robot, "#formMessage", "Created job e2e-hello");

        robot.clickOn("#formViewRuns");
        untilText(robot, "#runsJobFilter", "e2e-hello");
        robot.clickOn(cell(robot, "runsTable", Run.SUCCEEDED));

        untilText(robot, "#runStatus", Run.SUCCEEDED);
        untilText(robot, "#runOutput", "hello");
        robot.clickOn("#tab-overview");
        untilText(robot, "#stat-succeeded", "1");
    }

    /**
     * The node's own answers to a backfill (the count of ticks and runs, nothing added the second time, its 422 on
     * {@code to} beside the field) and to the edit form's schedule controls (set, then emptied: removed).
     */
    @Test
    void backfillAndScheduleControlsOnTheRealNode(FxRobot robot) throws Exception {
        String hourly;
        try (ForgeFlowClient client = ForgeFlowClient.create(nodeUrl)) {
            hourly = client.submitJob(JobRequest.shell("e2e-hourly", "echo tick").cron("0 * * * *").build()).job().id();
        }
        openApp(nodeUrl);
        connect(robot);
        robot.clickOn("#tab-jobs");
        robot.clickOn("#jobNamePrefix").write("e2e-hourly").type(javafx.scene.input.KeyCode.ENTER);
        untilText(robot, "#jobsCount", "1 job matching name_prefix=e2e-hourly");
        robot.clickOn(cell(robot, "jobsTable", "e2e-hourly"));

        robot.clickOn("#backfillFrom").write("2026-01-01T00:00:00Z");
        robot.clickOn("#backfillTo").write("2026-01-01T05:00:00Z");
        robot.clickOn("#backfillJob");
        // the message goes on with the runs' progress ("; done: 6 succeeded") once they ran, which may be before it is read
        untilText(robot, "#backfillMessage", "Backfill of e2e-hourly: 6 ticks, 6 runs created, 0 already had one");
        robot.clickOn("#backfillJob");
        untilText(robot, "#backfillMessage", "6 ticks, 0 runs created, 6 already had one");
        robot.clickOn("#backfillFrom").press(javafx.scene.input.KeyCode.CONTROL, javafx.scene.input.KeyCode.A)
                .release(javafx.scene.input.KeyCode.A, javafx.scene.input.KeyCode.CONTROL).write("2020-01-01T00:00:00Z");
        robot.clickOn("#backfillJob");
        until(() -> !text(robot, "#backfill-error-to").isEmpty());
        org.assertj.core.api.Assertions.assertThat(text(robot, "#backfill-error-to")).contains("holds more than 10000");

        robot.clickOn("#editJob");
        untilText(robot, "#formTitle", "Edit job e2e-hourly");
        clickInForm(robot, "#jobMaxRuns").write("5");
        clickInForm(robot, "#jobJitter").write("30");
        robot.clickOn("#submitJob");
        untilText(robot, "#jobsMessage", "Saved e2e-hourly.");
        try (ForgeFlowClient client = ForgeFlowClient.create(nodeUrl)) {
            org.assertj.core.api.Assertions.assertThat(client.getJob(hourly).maxRuns()).isEqualTo(5);
            org.assertj.core.api.Assertions.assertThat(client.getJob(hourly).jitterSeconds()).isEqualTo(30);
        }
        robot.clickOn(cell(robot, "jobsTable", "e2e-hourly"));
        robot.clickOn("#editJob");
        untilText(robot, "#jobMaxRuns", "5");
        clickInForm(robot, "#jobMaxRuns").press(javafx.scene.input.KeyCode.CONTROL, javafx.scene.input.KeyCode.A)
                .release(javafx.scene.input.KeyCode.A, javafx.scene.input.KeyCode.CONTROL)
                .press(javafx.scene.input.KeyCode.BACK_SPACE).release(javafx.scene.input.KeyCode.BACK_SPACE);
        robot.clickOn("#submitJob");
        try (ForgeFlowClient client = ForgeFlowClient.create(nodeUrl)) {
            until(() -> client.getJob(hourly).maxRuns() == null);
            org.assertj.core.api.Assertions.assertThat(client.getJob(hourly).jitterSeconds()).isEqualTo(30);
        }
    }

    /**
     * The node's own answers to the desktop's edit, filters and trace link: a PATCH with pending=keep, a 422 naming
     * its field, label and name filters as query parameters, and a run's trace_url from FORGEFLOW_TRACE_URL_TEMPLATE.
     */
    @Test
    void editFilterAndOpenATraceOnTheRealNode(FxRobot robot) throws Exception {
        String nightly;
        try (ForgeFlowClient client = ForgeFlowClient.create(nodeUrl)) {
            nightly = client.submitJob(JobRequest.shell("e2e-nightly", "echo nightly").cron("0 3 * * *")
                    .queue("reports").label("team", "ops").label("env", "prod").build()).job().id();
            client.submitJob(JobRequest.shell("e2e-dev", "echo dev").cron("0 4 * * *").queue("reports")
                    .label("team", "ops").label("env", "dev").build());
        }
        // the client sends no traceparent, so the traced job is submitted as curl would
        java.net.http.HttpResponse<String> traced = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(nodeUrl + "/api/jobs"))
                        .header("Content-Type", "application/json")
                        .header("traceparent", "00-" + TRACE + "-b7ad6b7169203331-01")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"name\": \"e2e-traced\", "
                                + "\"executor\": \"shell\", \"payload\": {\"command\": \"echo traced\"}}"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        org.assertj.core.api.Assertions.assertThat(traced.statusCode()).as(traced.body()).isEqualTo(201);

        try (RestClusterClient cluster = RestClusterClient.open(nodeUrl, null)) {
            org.assertj.core.api.Assertions.assertThat(cluster.jobs(new JobQuery(null, "reports",
                    Map.of("team", "ops", "env", "prod"), "e2e-"), null, 50).items())
                    .extracting(Job::name).containsExactly("e2e-nightly");
            Job changed = cluster.update(nightly, JobUpdate.create().priority(2).labels(Map.of("team", "ops")), true);
            org.assertj.core.api.Assertions.assertThat(changed.priority()).isEqualTo(2);
            org.assertj.core.api.Assertions.assertThat(changed.labels()).isEqualTo(Map.of("team", "ops"));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> cluster.update(nightly,
                    JobUpdate.create().maxConcurrent(0), false)).isInstanceOfSatisfying(ForgeFlowApiException.class,
                    e -> org.assertj.core.api.Assertions.assertThat(e.field()).isEqualTo("max_concurrent"));
            String tracedJob = cluster.jobs(new JobQuery(null, null, Map.of(), "e2e-traced"), null, 5).items().get(0).id();
            java.time.Instant hourAgo = java.time.Instant.now().minusSeconds(3600);
            org.assertj.core.api.Assertions.assertThat(cluster.runs(new RunQuery(tracedJob, null, "default", Map.of(),
                    hourAgo, null, null), null, 50).items()).hasSize(1)
                    .allSatisfy(r -> org.assertj.core.api.Assertions.assertThat(cluster.trace(r))
                            .isEqualTo(new io.forgeflow.admin.cluster.RunTrace(TRACE, TRACE_VIEWER + TRACE)));
            org.assertj.core.api.Assertions.assertThat(cluster.runs(new RunQuery(tracedJob, null, "reports", Map.of(),
                    hourAgo, null, null), null, 50).items()).isEmpty();
        }

        openApp(nodeUrl);
        connect(robot);
        robot.clickOn("#tab-jobs");
        robot.clickOn("#jobNamePrefix").write("e2e-n").type(javafx.scene.input.KeyCode.ENTER);
        untilText(robot, "#jobsCount", "1 job matching name_prefix=e2e-n");
        robot.clickOn(cell(robot, "jobsTable", "e2e-nightly"));
        robot.clickOn("#editJob");
        untilText(robot, "#formTitle", "Edit job e2e-nightly");
        clickInForm(robot, "#jobPriority").press(javafx.scene.input.KeyCode.CONTROL, javafx.scene.input.KeyCode.A)
                .release(javafx.scene.input.KeyCode.A, javafx.scene.input.KeyCode.CONTROL).write("7");
        robot.clickOn("#submitJob");
        untilText(robot, "#jobsMessage", "Saved e2e-nightly.");
        try (ForgeFlowClient client = ForgeFlowClient.create(nodeUrl)) {
            org.assertj.core.api.Assertions.assertThat(client.getJob(nightly).priority()).isEqualTo(7);
        }

        robot.clickOn("#tab-runs");
        cell(robot, "runsTable", TRACE); // the list's Trace column
        robot.clickOn(cell(robot, "runsTable", "e2e-traced"));
        untilText(robot, "#traceLink", TRACE);
        robot.clickOn("#traceLink");
        until(() -> openedLinks.contains(TRACE_VIEWER + TRACE));
    }

    /**
     * The node's own answers to the desktop's workflow calls: a batch (extract, then load after it, and an on-complete
     * job) read until completed, a child's parents and batch, a submission with parents and the 422 on an unknown
     * one; then the graph and the batch link clicked in the app.
     */
    @Test
    void workflowsAndABatchOnTheRealNode(FxRobot robot) throws Exception {
        String batchId;
        String extract;
        String load;
        try (ForgeFlowClient client = ForgeFlowClient.create(nodeUrl)) {
            var answer = client.submitBatch(io.forgeflow.client.BatchRequest.builder().name("e2e-import")
                    .job("a", JobRequest.shell("e2e-extract", "echo a").build())
                    .job("b", JobRequest.shell("e2e-load", "echo b").dependsOn("a").build())
                    .onComplete(JobRequest.shell("e2e-notify", "echo done").build()).build()).batch();
            batchId = answer.id();
            extract = answer.refs().get("a");
            load = answer.refs().get("b");
        }

        try (RestClusterClient cluster = RestClusterClient.open(nodeUrl, null)) {
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> cluster.batch(batchId).completed());
            var batch = cluster.batch(batchId);
            org.assertj.core.api.Assertions.assertThat(batch.name()).isEqualTo("e2e-import");
            org.assertj.core.api.Assertions.assertThat(List.of(batch.total(), batch.succeeded(), batch.dead(),
                    batch.waiting())).containsExactly(2L, 2L, 0L, 0L);
            org.assertj.core.api.Assertions.assertThat(batch.onCompleteJobId()).isNotNull();

            var workflow = cluster.workflow(load);
            org.assertj.core.api.Assertions.assertThat(workflow.dependsOn()).containsExactly(extract);
            org.assertj.core.api.Assertions.assertThat(workflow.onParentFailure()).isEqualTo("cancel");
            org.assertj.core.api.Assertions.assertThat(workflow.batchId()).isEqualTo(batchId);
            org.assertj.core.api.Assertions.assertThat(workflow.parents()).containsExactly(
                    new io.forgeflow.admin.cluster.WorkflowNode(extract, "e2e-extract", Job.COMPLETED, Run.SUCCEEDED));
            org.assertj.core.api.Assertions.assertThat(cluster.workflow(extract).children())
                    .extracting(io.forgeflow.admin.cluster.WorkflowNode::id).containsExactly(load);

            var child = cluster.submit(JobRequest.shell("e2e-after", "echo after").build(),
                    new io.forgeflow.admin.cluster.Parents(List.of(load), "run"));
            org.assertj.core.api.Assertions.assertThat(cluster.workflow(child.job().id()).onParentFailure())
                    .isEqualTo("run");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> cluster.submit(JobRequest.shell("e2e-orphan",
                    "true").build(), new io.forgeflow.admin.cluster.Parents(List.of(
                    "0190f3c2-6f1e-7a3b-9c4d-2e5f6a7b8c9d"), null)))
                    .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                        org.assertj.core.api.Assertions.assertThat(e.status()).isEqualTo(422);
                        org.assertj.core.api.Assertions.assertThat(e.field()).isEqualTo("depends_on");
                    });
        }

        openApp(nodeUrl);
        connect(robot);
        robot.clickOn("#tab-jobs");
        robot.clickOn(cell(robot, "jobsTable", "e2e-load"));
        untilText(robot, "#wfNode-" + extract, "e2e-extract\ncompleted · succeeded");
        robot.clickOn("#jobBatchLink");
        untilText(robot, "#batchStatus", "completed");
        untilText(robot, "#batchCounts", "succeeded 2");
    }
}
