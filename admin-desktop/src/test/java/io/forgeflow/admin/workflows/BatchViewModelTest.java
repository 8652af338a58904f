package io.forgeflow.admin.workflows;

import io.forgeflow.admin.cluster.BatchProgress;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.admin.testing.RecordingNavigator;
import io.forgeflow.admin.workflows.BatchViewModel.Segment;
import io.forgeflow.client.ForgeFlowApiException;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BatchViewModelTest {
    static final BatchProgress OPEN = new BatchProgress("batch_7", "import", Fixtures.T0, null, 10, 2, 1, 1, 4, 1, 1,
            "job_notify", BatchProgress.OPEN);
    static final BatchProgress DONE = new BatchProgress("batch_7", "import", Fixtures.T0, Fixtures.T0.plusSeconds(90),
            10, 0, 0, 0, 8, 1, 1, "job_notify", BatchProgress.COMPLETED);

    final FakeClusterClient cluster = new FakeClusterClient().withBatch(OPEN);
    final RecordingNavigator navigator = new RecordingNavigator();
    final JobNames names = new JobNames(cluster, Async.sameThread());
    final BatchViewModel vm = new BatchViewModel(cluster, Async.sameThread(), names,
            new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC)), navigator);

    @Test
    void showsTheProgressBySegmentInOrderWithTheStatusAndCounts() {
        vm.show("batch_7");

        assertThat(vm.segments()).containsExactly(new Segment("succeeded", 4, 0.4), new Segment("dead", 1, 0.1),
                new Segment("cancelled", 1, 0.1), new Segment("running", 1, 0.1), new Segment("pending", 1, 0.1),
                new Segment("waiting", 2, 0.2));
        assertThat(vm.progressProperty().get()).isCloseTo(0.6, within(1e-9));
        assertThat(vm.statusProperty().get()).isEqualTo("open");
        assertThat(vm.titleProperty().get()).isEqualTo("Batch import (batch_7)");
        assertThat(vm.summaryProperty().get()).startsWith("6 of 10 jobs ended; created ");
        assertThat(vm.countsProperty().get()).isEqualTo("succeeded 4 · dead 1 · cancelled 1 · running 1 · pending 1"
                + " · waiting 2 · total 10");
        assertThat(vm.onCompleteJobIdProperty().get()).isEqualTo("job_notify");
        assertThat(vm.batchIdProperty().get()).isEqualTo("batch_7");
    }

    @Test
    void emptyStatusesHaveNoSegmentAndACompletedBatchSaysWhen() {
        cluster.withBatch(DONE);

        vm.show("batch_7");

        assertThat(vm.segments()).extracting(Segment::status).containsExactly("succeeded", "dead", "cancelled");
        assertThat(vm.progressProperty().get()).isEqualTo(1.0);
        assertThat(vm.statusProperty().get()).isEqualTo("completed");
        assertThat(vm.summaryProperty().get()).contains("10 of 10 jobs ended, completed 2026-07-01 09:31:30");
    }

    @Test
    void theOnCompleteJobIsALinkToThatJobNamedOnceItsNameIsKnown() {
        vm.show("batch_7");
        assertThat(vm.onCompleteLabelProperty().get()).as("no such job on the fake: its id").isEqualTo("job_notify");
        assertThat(cluster.calls()).contains("job job_notify");

        names.learn("job_notify", "notify");
        assertThat(vm.onCompleteLabelProperty().get()).isEqualTo("notify (job_notify)");

        vm.openOnCompleteJob();

        assertThat(navigator.visits()).containsExactly("job job_notify");
    }

    @Test
    void aBatchWithoutOnCompleteHasNoLink() {
        cluster.withBatch(new BatchProgress("batch_8", null, Fixtures.T0, null, 1, 1, 0, 0, 0, 0, 0, null, "open"));

        vm.show("batch_8");
        vm.openOnCompleteJob();

        assertThat(vm.onCompleteJobIdProperty().get()).isEmpty();
        assertThat(vm.titleProperty().get()).isEqualTo("Batch batch_8");
        assertThat(navigator.visits()).isEmpty();
    }

    @Test
    void badInputIsExplainedAndNothingIsSent() {
        vm.batchIdProperty().set("   ");
        vm.open();
        assertThat(vm.inputErrorProperty().get()).startsWith("Enter a batch id");

        vm.batchIdProperty().set("batch 7/../x");
        vm.open();
        assertThat(vm.inputErrorProperty().get()).startsWith("Not a batch id");

        assertThat(cluster.calls()).isEmpty();
        assertThat(vm.batchProperty().get()).isNull();

        vm.batchIdProperty().set(" batch_7 ");
        assertThat(vm.inputErrorProperty().get()).as("typing clears the error").isEmpty();
        vm.open();
        assertThat(cluster.calls()).containsExactly("batch batch_7", "job job_notify");
    }

    @Test
    void anUnknownBatchIsSaidPlainlyAndOtherErrorsNameTheServersReason() {
        vm.show("batch_nope");
        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).isEqualTo("No batch batch_nope on this server: check the id.");

        cluster.failNext("batch", new ForgeFlowApiException(403, "the token lacks the read scope", null));
        vm.show("batch_7");
        assertThat(vm.messageProperty().get()).contains("refused the API token");
        assertThat(vm.batchProperty().get()).isNull();
    }

    @Test
    void aPollThatFindsTheSameCountsLeavesTheSegmentsAloneSoTheBarIsNotRedrawn() {
        vm.show("batch_7");
        java.util.List<String> events = new java.util.ArrayList<>();
        vm.segments().addListener((javafx.collections.ListChangeListener<BatchViewModel.Segment>) c -> events.add("x"));

        vm.poll();

        assertThat(events).as("same counts, same bar").isEmpty();
        cluster.withBatch(DONE);
        vm.poll();
        assertThat(events).hasSize(1);
    }

    @Test
    void pollReloadsAnOpenBatchAndStopsOnceItCompleted() {
        vm.show("batch_7");
        cluster.withBatch(DONE);

        vm.poll();
        assertThat(vm.statusProperty().get()).isEqualTo("completed");
        vm.poll();

        assertThat(cluster.calls()).filteredOn(c -> c.startsWith("batch")).containsExactly("batch batch_7",
                "batch batch_7");
    }
}
