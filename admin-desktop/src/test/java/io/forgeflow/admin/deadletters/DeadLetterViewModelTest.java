package io.forgeflow.admin.deadletters;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DeadLetterViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(Fixtures.job("job_1", "backup", Job.ACTIVE))
            .withRun(Fixtures.run("run_1", "job_1", Run.DEAD))
            .withRun(Fixtures.run("run_2", "job_1", Run.SUCCEEDED))
            .withRun(Fixtures.run("run_3", "job_1", Run.DEAD))
            .withRun(Fixtures.run("run_4", "job_1", Run.DEAD));
    final List<String> opened = new ArrayList<>();
    final DeadLetterViewModel vm = new DeadLetterViewModel(cluster, Async.sameThread(),
            new JobNames(cluster, Async.sameThread()), new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0,
            ZoneOffset.UTC)), new Navigator() {
        @Override
        public void showJob(String jobId) {
        }

        @Override
        public void showBatch(String batchId) {
        }

                @Override
                public void showRun(String runId) {
                    opened.add(runId);
                }

                @Override
                public void showRunsOfJob(String jobId) {
                }

                @Override
                public void showDeadLetters() {
                }

                @Override
                public void showSubmitForm() {
                }

                @Override
                public void showJobs() {
                }

                @Override
                public void showEditForm(io.forgeflow.client.Job job) {
                }
            });

    @BeforeEach
    void load() {
        vm.refresh();
    }

    @Test
    void listsOnlyDeadRunsWithTheirError() {
        assertThat(cluster.calls()).contains("runs null dead null 200");
        assertThat(vm.dead()).extracting(Run::id).containsExactly("run_4", "run_3", "run_1");
        assertThat(vm.errorOf(vm.dead().get(0))).isEqualTo("exit code 1: disk full");
        assertThat(vm.jobName("job_1")).isEqualTo("backup");
        assertThat(vm.countProperty().get()).isEqualTo("3 dead runs");
        assertThat(vm.canRequeueProperty().get()).isFalse();
    }

    @Test
    void requeueingManyRunsSendsOneRequestEachAndEmptiesThem() {
        vm.selection().setAll(vm.dead().get(0), vm.dead().get(2));
        assertThat(vm.canRequeueProperty().get()).isTrue();

        vm.requeueSelected();

        assertThat(cluster.calls()).contains("requeue run_4", "requeue run_1");
        assertThat(cluster.runById("run_4").status()).isEqualTo(Run.PENDING);
        assertThat(vm.dead()).extracting(Run::id).containsExactly("run_3");
        assertThat(vm.messageProperty().get()).isEqualTo("Requeued 2 runs: pending again with a fresh attempt budget.");
        assertThat(vm.failedProperty().get()).isFalse();
    }

    @Test
    void aPartialFailureSaysWhichRunsFailedAndWhy() {
        cluster.failNext("requeue", new ForgeFlowApiException(409, "run run_4 is pending", null));

        vm.requeue(List.copyOf(vm.dead()));

        assertThat(vm.dead()).extracting(Run::id).containsExactly("run_4");
        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).isEqualTo("Requeued 2 of 3 runs. run_4: run run_4 is pending (HTTP 409)");
    }

    @Test
    void oneSelectedRunOpensInTheRunsScreen() {
        vm.selection().setAll(vm.dead().get(1));
        assertThat(vm.canOpenProperty().get()).isTrue();

        vm.openSelected();

        assertThat(opened).containsExactly("run_3");
    }
}
