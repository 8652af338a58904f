package io.forgeflow.admin.overview;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.support.UiExecutor;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.admin.testing.ManualTicker;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import io.forgeflow.client.Node;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OverviewViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(Fixtures.job("job_1", "nightly-report", "active"))
            .withRun(Fixtures.run("run_1", "job_1", Run.SUCCEEDED))
            .withRun(Fixtures.run("run_2", "job_1", Run.DEAD))
            .withRun(Fixtures.run("run_3", "job_1", Run.RUNNING))
            .withNode(new Node("w2", List.of("worker"), "0.1", null, Instant.parse("2026-07-01T09:29:58Z"), 1, false))
            .withNode(new Node("w1", List.of("api", "scheduler", "worker"), "0.1", null,
                    Instant.parse("2026-07-01T09:29:50Z"), 0, true));
    final ManualTicker ticker = new ManualTicker();
    final Times times = new Times(ZoneId.of("Europe/Berlin"), Clock.fixed(Instant.parse("2026-07-01T09:30:00Z"),
            ZoneOffset.UTC));
    final List<String> opened = new ArrayList<>();
    final Navigator navigator = new Navigator() {
        @Override
        public void showJob(String jobId) {
        }

        @Override
        public void showBatch(String batchId) {
        }

        @Override
        public void showRun(String runId) {
            opened.add("run " + runId);
        }

        @Override
        public void showRunsOfJob(String jobId) {
        }

        @Override
        public void showDeadLetters() {
            opened.add("dead letters");
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
    };
    final OverviewViewModel vm = overview(Async.sameThread());

    OverviewViewModel overview(Async async) {
        JobNames names = new JobNames(cluster, Async.sameThread());
        return new OverviewViewModel(cluster, async, ticker, Duration.ofSeconds(2), names, times, navigator);
    }

    @Test
    void aNodeSaysHowItContainsItsJobsAndAsWhom() {
        Instant t = Instant.parse("2026-12-06T00:00:00Z");
        assertThat(OverviewViewModel.jobsRunText(new Node("w", List.of("worker"), "1", t, t, 0, false,
                "pid-namespace", "nobody"))).isEqualTo("pid-namespace, as nobody");
        assertThat(OverviewViewModel.jobsRunText(new Node("w", List.of("worker"), "1", t, t, 0, false,
                "process-group", null))).isEqualTo("process-group");
        assertThat(OverviewViewModel.jobsRunText(new Node("w", List.of("worker"), "1", t, t, 0, false)))
                .as("an older node says nothing").isEmpty();
    }

    @Test
    void startShowsCountsNodesLeaderAndTheRunsThatNeedAttention() {
        vm.start();

        assertThat(vm.succeededProperty().get()).isEqualTo(1);
        assertThat(vm.deadProperty().get()).isEqualTo(1);
        assertThat(vm.runningProperty().get()).isEqualTo(1);
        assertThat(vm.pendingProperty().get()).isZero();
        assertThat(vm.nodes()).extracting(Node::workerId).containsExactly("w1", "w2");
        assertThat(vm.leaderProperty().get()).isEqualTo("w1");
        assertThat(vm.attention()).extracting(Run::id).containsExactly("run_2");
        assertThat(vm.errorSummary(vm.attention().get(0))).isEqualTo("exit code 1: disk full");
        assertThat(vm.jobName("job_1")).isEqualTo("nightly-report");
        assertThat(vm.lastSeenText(vm.nodes().get(0))).isEqualTo("10 s ago");
        assertThat(vm.updatedProperty().get()).isEqualTo("Updated 11:30:00");
        assertThat(ticker.lastPeriod()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void runsWaitingForTheirParentsAreCounted() {
        cluster.withRun(Fixtures.run("run_w1", "job_1", Run.WAITING))
                .withRun(Fixtures.run("run_w2", "job_1", Run.WAITING));

        vm.start();

        assertThat(vm.waitingProperty().get()).isEqualTo(2);
        assertThat(vm.pendingProperty().get()).isZero();
    }

    @Test
    void liveEventsGoToTheTopOfTheFeed() {
        vm.start();
        cluster.openStream();

        cluster.emit(FakeClusterClient.event("run_3", "job_1", Run.SUCCEEDED, Run.RUNNING));

        assertThat(vm.modeProperty().get()).isEqualTo(LiveMode.LIVE);
        FeedEntry top = vm.feed().get(0);
        assertThat(top.runId()).isEqualTo("run_3");
        assertThat(vm.describe(top)).isEqualTo("11:31:00  nightly-report  run_3  running → succeeded");
    }

    @Test
    void withoutAnEventStreamTheFeedComesFromPollingEveryInterval() {
        vm.start();
        cluster.failStream(new ForgeFlowApiException(404, "HTTP 404 Not Found", null), false);
        int seeded = vm.feed().size();

        cluster.change("run_3", Run.DEAD);
        ticker.tick();

        assertThat(vm.modeProperty().get()).isEqualTo(LiveMode.POLLING);
        assertThat(vm.liveStatusProperty().get()).isEqualTo("Polling every 2 s (this server has no event stream).");
        assertThat(seeded).isEqualTo(3);
        assertThat(vm.feed()).hasSize(4);
        assertThat(vm.feed().get(0)).extracting(FeedEntry::runId, FeedEntry::status, FeedEntry::previousStatus)
                .containsExactly("run_3", Run.DEAD, Run.RUNNING);
        assertThat(vm.deadProperty().get()).isEqualTo(2);
        assertThat(vm.attention()).extracting(Run::id).containsExactly("run_3", "run_2");

        ticker.tick();

        assertThat(vm.feed()).as("an unchanged poll adds nothing").hasSize(4);
    }

    @Test
    void aDroppedStreamIsReportedWhileCountsKeepRefreshing() {
        vm.start();
        cluster.failStream(new ForgeFlowUnavailableException("http://x/", new ConnectException("reset")), true);

        assertThat(vm.modeProperty().get()).isEqualTo(LiveMode.RECONNECTING);
        assertThat(vm.liveStatusProperty().get()).contains("reconnecting");
    }

    @Test
    void aFailedRefreshIsShownAndClearsWhenTheServerAnswersAgain() {
        vm.start();
        cluster.failNext("stats", new ForgeFlowUnavailableException("http://x/", new ConnectException("Connection "
                + "refused")));

        ticker.tick();

        assertThat(vm.problemProperty().get()).startsWith("Could not refresh the overview: the server is unreachable "
                + "(Connection refused)");

        ticker.tick();

        assertThat(vm.problemProperty().get()).isEmpty();
    }

    @Test
    void aTickWhileARefreshIsOutIsSkipped() {
        List<Runnable> queued = new ArrayList<>();
        OverviewViewModel slow = overview(new Async(queued::add, UiExecutor.sameThread()));
        slow.start();

        ticker.tick();
        ticker.tick();

        assertThat(queued).hasSize(1);
        queued.remove(0).run();
        ticker.tick();
        assertThat(queued).hasSize(1);
    }

    @Test
    void clickingADeadRunOpensItAndTheDeadTileOpensTheDeadLetters() {
        vm.start();

        vm.open(vm.attention().get(0));
        vm.openDeadLetters();

        assertThat(opened).containsExactly("run run_2", "dead letters");
    }

    @Test
    void stopClosesTheStreamAndThePolling() {
        vm.start();

        vm.stop();

        assertThat(cluster.subscriptionClosed()).isTrue();
        assertThat(ticker.active()).isZero();
    }
}
