package io.forgeflow.admin.workflows;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.WorkflowNode;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.admin.testing.RecordingNavigator;
import io.forgeflow.client.ForgeFlowUnavailableException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

class JobDetailViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(Fixtures.job("job_a", "extract", Job.COMPLETED))
            .withJob(Fixtures.job("job_b", "load", Job.ACTIVE))
            .withJob(Fixtures.job("job_c", "report", Job.ACTIVE))
            .withJob(Fixtures.job("job_d", "archive", Job.ACTIVE))
            .withRun(Fixtures.run("run_a", "job_a", Run.SUCCEEDED))
            .withRun(Fixtures.run("run_b", "job_b", Run.DEAD))
            .withRun(Fixtures.run("run_c", "job_c", "waiting"))
            .withParents("job_b", null, "job_a")
            .withParents("job_c", "wait", "job_a", "job_b")
            .inBatch("job_b", "batch_7");
    final RecordingNavigator navigator = new RecordingNavigator();
    final Async async = Async.sameThread();
    final JobNames names = new JobNames(cluster, async);
    final JobDetailViewModel vm = new JobDetailViewModel(cluster, async, names, navigator);

    @Test
    void showsTheJobsParentsAndChildrenWithTheirJobAndLatestRunStatus() {
        vm.open("job_b");

        assertThat(vm.titleProperty().get()).isEqualTo("load (job_b)");
        assertThat(vm.selfProperty().get()).isEqualTo(new WorkflowNode("job_b", "load", Job.ACTIVE, Run.DEAD));
        assertThat(vm.parents()).containsExactly(new WorkflowNode("job_a", "extract", Job.COMPLETED, Run.SUCCEEDED));
        assertThat(vm.children()).containsExactly(new WorkflowNode("job_c", "report", Job.ACTIVE, "waiting"));
        assertThat(vm.dependsOnProperty().get()).isEqualTo("job_a");
        assertThat(vm.onParentFailureProperty().get()).startsWith("cancel");
        assertThat(vm.batchIdProperty().get()).isEqualTo("batch_7");
        assertThat(JobDetailViewModel.statusLine(vm.children().get(0))).isEqualTo("active · waiting");
        assertThat(vm.children().get(0).shownStatus()).isEqualTo("waiting");
        assertThat(names.nameOf("job_c")).as("names learnt from the graph").isEqualTo("report");
    }

    @Test
    void aJobWithSeveralParentsShowsThemAndItsPolicy() {
        vm.open("job_c");

        assertThat(vm.parents()).extracting(WorkflowNode::id).containsExactly("job_a", "job_b");
        assertThat(vm.children()).isEmpty();
        assertThat(vm.dependsOnProperty().get()).isEqualTo("job_a, job_b");
        assertThat(vm.onParentFailureProperty().get()).startsWith("wait: waits until every parent has succeeded");
        assertThat(vm.batchIdProperty().get()).as("not made by a batch").isEmpty();
    }

    @Test
    void aJobOutsideAnyWorkflowSaysSoAndANodeWithoutRunsSaysThat() {
        vm.open("job_d");

        assertThat(vm.parents()).isEmpty();
        assertThat(vm.children()).isEmpty();
        assertThat(vm.dependsOnProperty().get()).isEqualTo("none");
        assertThat(vm.onParentFailureProperty().get()).isEqualTo("—");
        assertThat(JobDetailViewModel.statusLine(vm.selfProperty().get())).isEqualTo("active · no run");
        assertThat(vm.selfProperty().get().shownStatus()).isEqualTo(Job.ACTIVE);
    }

    @Test
    void aJobThatPausesAfterFailuresShowsItsDeadRunsInARowSoFar() {
        cluster.withJob(Fixtures.streakJob("job_e", "flaky", 2));

        vm.open("job_e");
        assertThat(vm.deadStreakProperty().get()).isEqualTo("2 of 3 dead in a row, pauses at 3");

        vm.open("job_d");
        assertThat(vm.deadStreakProperty().get()).as("no pause_after_failures: nothing shown").isEmpty();
    }

    @Test
    void clickingANodeOpensThatJobAndTheBatchLinkOpensTheBatch() {
        vm.open("job_b");

        vm.openNode(vm.parents().get(0));
        vm.openNode(vm.children().get(0));
        vm.openBatch();

        assertThat(navigator.visits()).containsExactly("job job_a", "job job_c", "batch batch_7");
    }

    @Test
    void aJobWithoutABatchHasNoLinkToFollow() {
        vm.open("job_a");

        vm.openBatch();

        assertThat(navigator.visits()).isEmpty();
    }

    @Test
    void anUnknownJobAndAnUnreachableServerAreSaidPlainly() {
        vm.open("job_gone");

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).isEqualTo("No job job_gone on this server (deleted for good?).");

        cluster.failNext("workflow", new ForgeFlowUnavailableException("http://fake:8080/",
                new IOException("Connection refused")));
        vm.open("job_b");
        assertThat(vm.messageProperty().get()).startsWith("Could not load job job_b: the server is unreachable");

        vm.open("job_b");
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get()).isEmpty();
    }

    @Test
    void pollReloadsTheShownJobSoStatusesChangeWithoutAClick() {
        vm.open("job_c");
        cluster.withRun(Fixtures.run("run_c2", "job_c", Run.PENDING));

        vm.poll();

        assertThat(vm.selfProperty().get().runStatus()).isEqualTo(Run.PENDING);
        assertThat(cluster.calls()).filteredOn(c -> c.startsWith("workflow")).hasSize(2);
    }

    @Test
    void aPollThatFindsNothingChangedLeavesTheGraphsListsAloneSoTheirNodesAreNotRedrawnUnderAClick() {
        vm.open("job_b");
        java.util.List<String> events = new java.util.ArrayList<>();
        vm.parents().addListener((javafx.collections.ListChangeListener<WorkflowNode>) c -> events.add("parents"));
        vm.children().addListener((javafx.collections.ListChangeListener<WorkflowNode>) c -> events.add("children"));

        vm.poll();
        assertThat(events).as("nothing changed, nothing redrawn").isEmpty();

        cluster.withRun(Fixtures.run("run_c2", "job_c", Run.PENDING));
        vm.poll();
        assertThat(events).containsExactly("children");
        assertThat(vm.children()).containsExactly(new WorkflowNode("job_c", "report", Job.ACTIVE, Run.PENDING));
    }

    @Test
    void clearEmptiesTheDetail() {
        vm.open("job_b");

        vm.clear();

        assertThat(vm.selfProperty().get()).isNull();
        assertThat(vm.parents()).isEmpty();
        assertThat(vm.titleProperty().get()).isEqualTo("Select a job");
        vm.poll();
        assertThat(cluster.calls()).filteredOn(c -> c.startsWith("workflow")).hasSize(1);
    }
}
