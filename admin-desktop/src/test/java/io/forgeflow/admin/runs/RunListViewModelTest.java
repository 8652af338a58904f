package io.forgeflow.admin.runs;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.client.Attempt;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RunListViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(Fixtures.job("job_1", "nightly-report", Job.ACTIVE))
            .withJob(Fixtures.job("job_2", "backup", Job.ACTIVE));
    final Times times = new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC));
    final JobNames names = new JobNames(cluster, Async.sameThread());
    final RunDetailViewModel detail = new RunDetailViewModel(cluster, Async.sameThread(), names, times);
    final RunListViewModel vm = new RunListViewModel(cluster, Async.sameThread(), names, times, detail);

    {
        cluster.withRun(Fixtures.run("run_1", "job_1", Run.SUCCEEDED))
                .withRun(Fixtures.withAttempts(Fixtures.run("run_2", "job_2", Run.DEAD), List.of(
                        new Attempt(1, "w1", Fixtures.T0, Fixtures.T0.plusSeconds(2), "failed", "exit code 1"),
                        new Attempt(2, "w2", Fixtures.T0.plusSeconds(9), Fixtures.T0.plusSeconds(10), "timed_out",
                                "killed after 1 s"))))
                .withRun(Fixtures.run("run_3", "job_1", Run.RUNNING));
    }

    @Test
    void refreshShowsRunsAcrossJobsNewestFirstWithJobNames() {
        vm.refresh();

        assertThat(vm.runs()).extracting(Run::id).containsExactly("run_3", "run_2", "run_1");
        assertThat(vm.jobName("job_2")).isEqualTo("backup");
        assertThat(vm.countProperty().get()).isEqualTo("3 runs");
        assertThat(vm.jobFilterLabelProperty().get()).isEqualTo("All jobs");
    }

    @Test
    void oneJobsHistory() {
        vm.showJob("job_1");

        assertThat(cluster.calls()).contains("runs job_1 null null 500");
        assertThat(vm.runs()).extracting(Run::id).containsExactly("run_3", "run_1");
        assertThat(vm.jobFilterLabelProperty().get()).isEqualTo("Job nightly-report (job_1)");

        vm.showAllJobs();

        assertThat(vm.runs()).hasSize(3);
    }

    @Test
    void theStatusFilterAsksTheServer() {
        vm.refresh();

        vm.statusFilterProperty().set(Run.DEAD);

        assertThat(cluster.calls()).last().isEqualTo("runs null dead null 500");
        assertThat(vm.runs()).extracting(Run::id).containsExactly("run_2");
    }

    @Test
    void selectingARunShowsItsErrorOutputAndAttemptTimeline() {
        vm.refresh();

        vm.selectedProperty().set(vm.runs().get(1));

        assertThat(detail.titleProperty().get()).isEqualTo("Run run_2 of backup");
        assertThat(detail.statusProperty().get()).isEqualTo(Run.DEAD);
        assertThat(detail.errorProperty().get()).isEqualTo("exit code 1: disk full");
        assertThat(detail.outputProperty().get()).isEqualTo("output of run_2");
        assertThat(detail.attempts()).extracting(Attempt::workerId, Attempt::outcome)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("w1", "failed"),
                        org.assertj.core.groups.Tuple.tuple("w2", "timed_out"));
        assertThat(detail.summaryProperty().get()).startsWith("Attempt 2 of 3");
        assertThat(detail.canRequeueProperty().get()).isTrue();
        assertThat(detail.canCancelProperty().get()).isFalse();
    }

    @Test
    void openingARunNotInTheListStillShowsIt() {
        vm.showJob("job_1");

        vm.open("run_2");

        assertThat(detail.runProperty().get().id()).isEqualTo("run_2");
    }

    @Test
    void tenThousandRunsArriveAPageAtATime() {
        FakeClusterClient big = new FakeClusterClient().withJob(Fixtures.job("job_1", "n", Job.ACTIVE));
        for (int i = 0; i < 10_000; i++) {
            big.withRun(Fixtures.run("run_" + i, "job_1", Run.SUCCEEDED));
        }
        JobNames bigNames = new JobNames(big, Async.sameThread());
        RunListViewModel list = new RunListViewModel(big, Async.sameThread(), bigNames, times,
                new RunDetailViewModel(big, Async.sameThread(), bigNames, times));

        list.refresh();
        assertThat(list.runs()).hasSize(500);
        assertThat(list.countProperty().get()).isEqualTo("500 runs loaded; more on the server");
        while (list.hasMoreProperty().get()) {
            list.loadMore();
        }

        assertThat(list.runs()).hasSize(10_000);
        assertThat(list.runs().get(9_999).id()).isEqualTo("run_0");
        assertThat(big.calls()).contains("runs null null 9500 500");
        assertThat(list.countProperty().get()).isEqualTo("10000 runs");
    }

    @Test
    void cancellingARunningRunNeedsAConfirmation() {
        vm.refresh();
        vm.selectedProperty().set(vm.runs().get(0));
        assertThat(detail.canCancelProperty().get()).isTrue();

        detail.cancel();
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("cancelRun"));
        detail.confirm();

        assertThat(cluster.calls()).contains("cancelRun run_3");
        assertThat(detail.statusProperty().get()).isEqualTo(Run.CANCELLED);
        assertThat(detail.messageProperty().get()).isEqualTo("Cancel requested for run run_3.");
        assertThat(vm.runs().get(0).status()).as("the list shows the change").isEqualTo(Run.CANCELLED);
    }

    @Test
    void requeueingADeadRunFromTheDetail() {
        vm.refresh();
        vm.selectedProperty().set(vm.runs().get(1));

        detail.requeue();

        assertThat(detail.statusProperty().get()).isEqualTo(Run.PENDING);
        assertThat(detail.messageProperty().get()).startsWith("Requeued run run_2");
        assertThat(vm.runs().get(1).status()).isEqualTo(Run.PENDING);
    }

    @Test
    void aRefusedActionShowsWhy() {
        vm.refresh();
        vm.selectedProperty().set(vm.runs().get(1));
        cluster.failNext("requeue", new ForgeFlowApiException(409, "run run_2 is pending", null));

        detail.requeue();

        assertThat(detail.failedProperty().get()).isTrue();
        assertThat(detail.messageProperty().get()).isEqualTo("Could not requeue run run_2: run run_2 is pending "
                + "(HTTP 409)");
    }
}
