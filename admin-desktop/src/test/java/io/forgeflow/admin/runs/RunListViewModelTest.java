package io.forgeflow.admin.runs;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.RunTrace;
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
    final TraceViewer traces = new TraceViewer();
    final List<String> opened = new java.util.ArrayList<>();
    final RunDetailViewModel detail = new RunDetailViewModel(cluster, Async.sameThread(), names, times, traces);
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
    void aRunThatSnoozedSaysHowOftenInItsSummary() {
        Run r = cluster.run("run_2");
        cluster.withRun(new Run(r.id(), r.jobId(), r.status(), r.attempt(), r.maxAttempts(), r.priority(),
                r.scheduledFor(), r.startedAt(), r.finishedAt(), r.workerId(), r.leaseExpiresAt(), r.output(), r.error(),
                r.attempts(), null, null, java.util.Map.of(), null, null, 2));
        vm.refresh();

        vm.open("run_2");

        assertThat(detail.summaryProperty().get()).endsWith(" · snoozed 2 times (no attempt spent)");
        vm.open("run_1");
        assertThat(detail.summaryProperty().get()).doesNotContain("snoozed");
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
                new RunDetailViewModel(big, Async.sameThread(), bigNames, times, new TraceViewer()));

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

    @Test
    void everyFilterIsSentToTheServerAsTheOperatorTypedItInTheirZone() {
        Times berlin = new Times(ZoneId.of("Europe/Berlin"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC));
        RunListViewModel list = new RunListViewModel(cluster, Async.sameThread(), names, berlin,
                new RunDetailViewModel(cluster, Async.sameThread(), names, berlin, traces));
        list.jobIdFilterProperty().set("job_1");
        list.queueFilterProperty().set("reports");
        list.labelFilterProperty().set("team:ops");
        list.scheduledAfterProperty().set("2026-07-01 09:00");
        list.scheduledBeforeProperty().set("2026-07-02");
        list.finishedAfterProperty().set("2026-07-01T07:15:00Z");
        assertThat(cluster.calls()).as("text filters wait for Filter (or Enter)").isEmpty();

        list.statusFilterProperty().set(Run.SUCCEEDED);

        assertThat(cluster.calls()).filteredOn(c -> c.startsWith("runs")).containsExactly("runs job_1 succeeded null 500 [job_id=job_1 status=succeeded "
                + "queue=reports label=team:ops scheduled_after=2026-07-01T07:00:00Z "
                + "scheduled_before=2026-07-01T22:00:00Z finished_after=2026-07-01T07:15:00Z]");
        assertThat(list.jobFilterLabelProperty().get()).isEqualTo("Job nightly-report (job_1)");
    }

    @Test
    void timeFiltersNarrowTheRunsAndPagingKeepsThem() {
        FakeClusterClient many = new FakeClusterClient().withJob(Fixtures.job("job_1", "n", Job.ACTIVE));
        for (int i = 0; i < 1200; i++) {
            Run r = Fixtures.run("run_" + i, "job_1", Run.SUCCEEDED);
            many.withRun(new Run(r.id(), r.jobId(), r.status(), 1, 3, 5, Fixtures.T0.plusSeconds(60L * i),
                    null, Fixtures.T0.plusSeconds(60L * i + 5), null, null, null, null, null));
        }
        JobNames n = new JobNames(many, Async.sameThread());
        RunListViewModel list = new RunListViewModel(many, Async.sameThread(), n, times,
                new RunDetailViewModel(many, Async.sameThread(), n, times, traces));
        list.scheduledAfterProperty().set("2026-07-01T09:30:00Z"); // excludes run_0
        list.scheduledBeforeProperty().set("2026-07-02 00:00"); // UTC here: runs 1 to 869
        list.applyFilters();
        assertThat(list.runs()).hasSize(500);
        assertThat(list.countProperty().get()).isEqualTo("500 runs loaded; more on the server (filtered)");

        list.scheduledBeforeProperty().set(""); // typed, not applied
        list.loadMore();

        assertThat(many.calls()).last().isEqualTo("runs null null 500 500 [scheduled_after=2026-07-01T09:30:00Z "
                + "scheduled_before=2026-07-02T00:00:00Z]");
        assertThat(list.runs()).hasSize(869);
        assertThat(list.runs()).extracting(Run::id).doesNotContain("run_0", "run_870");
    }

    @Test
    void badFilterInputIsExplainedAndNothingIsSent() {
        vm.scheduledAfterProperty().set("yesterday");
        vm.applyFilters();
        assertThat(vm.filterErrorProperty().get()).isEqualTo("Scheduled after: write the time as 2026-07-01 09:30 "
                + "(in UTC), 2026-07-01, or 2026-07-01T09:30:00Z; 'yesterday' is none of these.");

        vm.scheduledAfterProperty().set("2026-07-02");
        vm.scheduledBeforeProperty().set("2026-07-01");
        vm.applyFilters();
        assertThat(vm.filterErrorProperty().get()).isEqualTo("Scheduled after must be earlier than scheduled before.");

        vm.scheduledBeforeProperty().set("");
        vm.labelFilterProperty().set("team");
        vm.applyFilters();
        assertThat(vm.filterErrorProperty().get()).startsWith("Labels: 'team' has no ':'");
        assertThat(cluster.calls()).isEmpty();
    }

    @Test
    void showingOneJobClearsTheOtherFilters() {
        vm.queueFilterProperty().set("reports");
        vm.statusFilterProperty().set(Run.DEAD);

        vm.showJob("job_1");

        assertThat(vm.queueFilterProperty().get()).isEmpty();
        assertThat(vm.statusFilterProperty().get()).isEqualTo("all");
        assertThat(cluster.calls()).last().isEqualTo("runs job_1 null null 500");
        assertThat(vm.runs()).extracting(Run::id).containsExactly("run_3", "run_1");
    }

    @Test
    void aTracedRunLinksToTheNodesTraceUrlAndOpensItInTheBrowser() {
        traces.setOpener(opened::add);
        cluster.withTrace("run_2", new RunTrace("4bf92f3577b34da6a3ce929d0e0e4736",
                "http://tempo.example/trace/4bf92f3577b34da6a3ce929d0e0e4736"));
        vm.refresh();
        assertThat(vm.traceOf(vm.runs().get(1))).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(vm.traceOf(vm.runs().get(0))).isEmpty();

        vm.selectedProperty().set(vm.runs().get(1));
        assertThat(detail.traceIdProperty().get()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(detail.traceUrlProperty().get()).isEqualTo("http://tempo.example/trace/4bf92f3577b34da6a3ce929d0e0e4736");
        detail.openTrace();

        assertThat(opened).containsExactly("http://tempo.example/trace/4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(detail.messageProperty().get()).startsWith("Opened the trace in the browser");
    }

    @Test
    void withoutTheNodesLinkTheDesktopTemplateIsFilledInAndWithoutEitherTheIdIsText() {
        cluster.withTrace("run_2", new RunTrace("4bf92f3577b34da6a3ce929d0e0e4736", null));
        vm.refresh();
        vm.selectedProperty().set(vm.runs().get(1));
        assertThat(detail.traceUrlProperty().get()).isEmpty();
        assertThat(detail.traceNoteProperty().get()).startsWith("no trace viewer known");
        detail.openTrace();
        assertThat(opened).isEmpty();

        traces.setTemplate("http://jaeger:16686/trace/{trace_id}");
        traces.setOpener(opened::add);
        detail.reload();

        assertThat(detail.traceUrlProperty().get()).isEqualTo("http://jaeger:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736");
        detail.openTrace();
        assertThat(opened).containsExactly("http://jaeger:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736");

        vm.selectedProperty().set(vm.runs().get(0));
        assertThat(detail.traceIdProperty().get()).isEmpty();
        assertThat(detail.traceNoteProperty().get()).isEqualTo("not traced");
    }

    @Test
    void withoutABrowserTheOperatorIsToldToCopyTheLink() {
        cluster.withTrace("run_2", new RunTrace("4bf92f3577b34da6a3ce929d0e0e4736", "http://tempo/t/4bf9"));
        vm.refresh();
        vm.selectedProperty().set(vm.runs().get(1));

        detail.openTrace();

        assertThat(detail.failedProperty().get()).isTrue();
        assertThat(detail.messageProperty().get()).isEqualTo("No browser to open the trace; copy the link: "
                + "http://tempo/t/4bf9");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "http://jaeger:16686/trace/{trace_id}|",
            "''|",
            "http://jaeger:16686/trace/|must contain {trace_id}",
            "jaeger/trace/{trace_id}|must be an http:// or https:// URL",
            "http://jae ger/{trace_id}|is not a URL"})
    void aTraceTemplateIsChecked(String template, String problem) {
        String found = TraceViewer.checkTemplate(template);
        if (problem == null) {
            assertThat(found).isNull();
        } else {
            assertThat(found).contains(problem);
        }
    }

    @Test
    void waitingIsAStatusChoiceAndFiltersOnTheServer() {
        cluster.withRun(Fixtures.run("run_9", "job_2", "waiting"));
        assertThat(RunListViewModel.STATUS_CHOICES).contains("waiting");

        vm.statusFilterProperty().set("waiting");

        assertThat(cluster.calls()).contains("runs null waiting null 500");
        assertThat(vm.runs()).extracting(Run::id).containsExactly("run_9");
    }

    @Test
    void aWaitingRunCanBeCancelled() {
        cluster.withRun(Fixtures.run("run_9", "job_2", "waiting"));
        detail.load("run_9");

        assertThat(detail.canCancelProperty().get()).isTrue();
    }
}
