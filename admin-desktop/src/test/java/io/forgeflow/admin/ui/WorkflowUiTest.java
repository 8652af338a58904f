package io.forgeflow.admin.ui;

import io.forgeflow.client.Run;
import javafx.scene.Node;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.Region;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Workflows clicked through the real app: a job's graph, its batch, parents on the form, waiting runs. */
class WorkflowUiTest extends UiTestSupport {

    /** nightly-report waits for backup-db (policy wait); send-invoices waits for nightly-report; batch_1 made it. */
    void openWorkflow() {
        open(s -> {
            String backup = s.jobNamed("backup-db").id();
            String nightly = s.jobNamed("nightly-report").id();
            s.link(nightly, "wait", backup);
            s.link(s.jobNamed("send-invoices").id(), null, nightly);
            s.addBatch("batch_1", "import", new long[] {1, 1, 0, 2, 0, 0}, s.jobNamed("cleanup-tmp").id(), "open",
                    nightly);
        });
    }

    List<String> styles(FxRobot robot, String query) {
        return onFx(() -> List.copyOf(robot.lookup(query).query().getStyleClass()));
    }

    @Test
    void aJobsGraphShowsItsParentsAndChildrenAndANodeOpensThatJob(FxRobot robot) {
        openWorkflow();
        connect(robot);
        String backup = server.jobNamed("backup-db").id();
        String nightly = server.jobNamed("nightly-report").id();
        String invoices = server.jobNamed("send-invoices").id();

        robot.clickOn("#tab-jobs");
        robot.clickOn(cell(robot, "jobsTable", "nightly-report"));

        untilText(robot, "#jobDetailTitle", "nightly-report (" + nightly + ")");
        untilText(robot, "#wfNode-" + backup, "backup-db\nactive · dead");
        assertThat(styles(robot, "#wfNode-" + backup)).contains("status-dead");
        assertThat(text(robot, "#wfThis")).isEqualTo("nightly-report\nactive · pending");
        assertThat(styles(robot, "#wfThis")).contains("status-pending");
        assertThat(text(robot, "#wfNode-" + invoices)).isEqualTo("send-invoices\nactive · dead");
        assertThat(text(robot, "#jobDependsOn")).isEqualTo(backup);
        assertThat(text(robot, "#jobOnParentFailure")).startsWith("wait:");
        assertThat(text(robot, "#jobBatchLink")).isEqualTo("Batch batch_1");

        // one click opens it: a poll that finds nothing changed does not redraw the node under the pointer
        String opened = "backup-db (" + backup + ")";
        robot.clickOn("#wfNode-" + backup);
        untilText(robot, "#jobDetailTitle", opened);
        untilText(robot, "#wfNode-" + nightly, "nightly-report");
        assertThat(onFx(() -> ((TableView<?>) robot.lookup("#jobsTable").query()).getSelectionModel()
                .getSelectedItem().toString())).contains("backup-db");
        assertThat(text(robot, "#jobDependsOn")).isEqualTo("none");
    }

    @Test
    void theBatchLinkShowsItsProgressAndTheOnCompleteJobLinksBack(FxRobot robot) {
        openWorkflow();
        connect(robot);
        robot.clickOn("#tab-jobs");
        robot.clickOn(cell(robot, "jobsTable", "nightly-report"));
        untilText(robot, "#jobBatchLink", "Batch batch_1");

        robot.clickOn("#jobBatchLink");

        untilText(robot, "#batchStatus", "open");
        assertThat(styles(robot, "#batchStatus")).contains("status-open");
        assertThat(text(robot, "#batchTitle")).isEqualTo("Batch import (batch_1)");
        assertThat(text(robot, "#batchSummary")).startsWith("2 of 4 jobs ended");
        assertThat(text(robot, "#batchCounts")).isEqualTo("succeeded 2 · dead 0 · cancelled 0 · running 0 · "
                + "pending 1 · waiting 1 · total 4");
        assertThat(onFx(() -> ((javafx.scene.control.ProgressBar) robot.lookup("#batchProgress").query())
                .getProgress())).isEqualTo(0.5);
        until(() -> robot.lookup("#batchSegment-succeeded").tryQuery().isPresent());
        // the segments exist before JavaFX has laid them out: their widths are 0 until the next layout pass
        until(() -> onFx(() -> ((Region) robot.lookup("#batchSegment-succeeded").query()).getWidth()) > 0);
        double succeeded = onFx(() -> ((Region) robot.lookup("#batchSegment-succeeded").query()).getWidth());
        double waiting = onFx(() -> ((Region) robot.lookup("#batchSegment-waiting").query()).getWidth());
        assertThat(succeeded).as("half the bar").isGreaterThan(waiting * 1.5);
        assertThat(robot.lookup("#batchSegment-dead").tryQuery()).as("no dead job, no segment").isEmpty();

        assertThat(text(robot, "#batchOnCompleteLink")).isEqualTo("cleanup-tmp ("
                + server.jobNamed("cleanup-tmp").id() + ")");
        assertThat(text(robot, "#batchLegend-succeeded")).isEqualTo("■ succeeded 2");
        assertThat(styles(robot, "#batchLegend-waiting")).contains("status-waiting");

        robot.clickOn("#batchOnCompleteLink");

        untilText(robot, "#jobDetailTitle", "cleanup-tmp (" + server.jobNamed("cleanup-tmp").id() + ")");
    }

    @Test
    void aJobWithManyChildrenDrawsFortyAndCountsTheRest(FxRobot robot) {
        open(s -> {
            String nightly = s.jobNamed("nightly-report").id();
            for (int i = 1; i <= 45; i++) {
                s.link(s.addJob("child-" + i, "shell", java.util.Map.of("command", "true"), null, "UTC",
                        io.forgeflow.client.Job.ACTIVE).id(), null, nightly);
            }
        });
        connect(robot);
        robot.clickOn("#tab-jobs");
        robot.clickOn("#jobNamePrefix").write("nightly").type(KeyCode.ENTER); // the oldest of 51 jobs
        untilText(robot, "#jobsCount", "1 job matching");
        robot.clickOn(cell(robot, "jobsTable", "nightly-report"));

        untilText(robot, "#wfChildrenMore", "… and 5 more");
        assertThat(onFx(() -> robot.lookup("#wfChildren .workflow-node").queryAll().size())).isEqualTo(40);
    }

    @Test
    void aBatchIdCanBeEnteredAndABadOneIsExplained(FxRobot robot) {
        open(s -> s.addBatch("batch_2", null, new long[] {0, 0, 0, 3, 1, 0}, null, "completed"));
        connect(robot);
        robot.clickOn("#tab-batches");

        robot.clickOn("#openBatch");
        untilText(robot, "#batchIdError", "Enter a batch id");

        robot.clickOn("#batchIdField").write("no such/batch").type(KeyCode.ENTER);
        untilText(robot, "#batchIdError", "Not a batch id");

        robot.clickOn("#batchIdField").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                .write("batch_9").type(KeyCode.ENTER);
        untilText(robot, "#batchMessage", "No batch batch_9 on this server: check the id.");

        robot.clickOn("#batchIdField").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                .write("batch_2");
        robot.clickOn("#openBatch");
        untilText(robot, "#batchStatus", "completed");
        assertThat(text(robot, "#batchSummary")).startsWith("4 of 4 jobs ended, completed ");
        assertThat(robot.lookup("#batchOnCompleteLink").query().isVisible()).isFalse();
    }

    @Test
    void aJobWithParentsIsSubmittedAndTheServers422IsShownBesideParents(FxRobot robot) {
        open(s -> { });
        connect(robot);
        String backup = server.jobNamed("backup-db").id();
        robot.clickOn("#tab-submit");
        robot.clickOn("#jobName").write("after-backup");
        robot.clickOn("#jobCommand").write("echo done");
        clickInForm(robot, "#jobParents").write("job_404");

        robot.clickOn("#submitJob");

        untilText(robot, "#error-parents", "depends_on: no job with id job_404");
        untilText(robot, "#formMessage", "The server rejected the job");

        clickInForm(robot, "#jobParents").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                .write(backup);
        clickInForm(robot, "#jobOnParentFailure");
        robot.clickOn("run");
        robot.clickOn("#submitJob");

        untilText(robot, "#formMessage", "it waits for 1 parent (on parent failure: run).");
        assertThat(server.lastSubmission()).contains("\"depends_on\":[\"" + backup + "\"]")
                .contains("\"on_parent_failure\":\"run\"");
        String created = server.jobNamed("after-backup").id();
        assertThat(server.runsOf(created)).extracting(Run::status).containsExactly("waiting");
    }

    @Test
    void waitingRunsAreAStatusChoiceAndColoured(FxRobot robot) {
        open(s -> s.addRun(s.jobNamed("send-invoices").id(), "waiting", null, null, List.of(), s.now()));
        connect(robot);
        untilText(robot, "#stat-waiting", "1");
        assertThat(styles(robot, "#stat-waiting")).contains("status-waiting");
        robot.clickOn("#tab-runs");
        cell(robot, "runsTable", Run.RUNNING);

        robot.clickOn("#runStatusFilter");
        // the choice in the open menu, not the table's cell of the same text
        robot.clickOn(robot.lookup(".context-menu .label").match(org.testfx.matcher.control.LabeledMatchers
                .hasText("waiting")).queryAs(Node.class));

        until(() -> server.requests().stream().anyMatch(r -> r.startsWith("GET /api/runs?status=waiting")));
        Node waiting = cell(robot, "runsTable", "waiting");
        assertThat(onFx(() -> waiting.getStyleClass())).contains("status-waiting");
        untilText(robot, "#runsCount", "1 run");
        assertThat(((Labeled) waiting).getText()).isEqualTo("waiting");
    }
}
