package io.forgeflow.admin.console;

import io.forgeflow.admin.console.ConsoleViewModel.Screen;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.admin.testing.ManualTicker;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class ConsoleViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(Fixtures.job("job_1", "backup", Job.ACTIVE))
            .withRun(Fixtures.run("run_1", "job_1", Run.DEAD));
    final ManualTicker ticker = new ManualTicker();
    final ConsoleViewModel vm = new ConsoleViewModel(cluster, Async.sameThread(), ticker, Duration.ofSeconds(2),
            new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC)));

    @Test
    void startLoadsEveryScreenAndStartsTheOverview() {
        vm.start();

        assertThat(vm.screenProperty().get()).isEqualTo(Screen.OVERVIEW);
        assertThat(vm.overview().attention()).hasSize(1);
        assertThat(vm.jobs().jobs()).hasSize(1);
        assertThat(vm.runs().runs()).hasSize(1);
        assertThat(vm.deadLetters().dead()).hasSize(1);
        assertThat(ticker.active()).as("the overview's poll and the front screen's").isEqualTo(2);
    }

    @Test
    void theTenantsScreenReadsTheTenantsWhenShownAndKeepsThemFresh() {
        cluster.withTenant(new io.forgeflow.client.Tenant("acme", 2, null, null, 1, 0, 0));
        vm.start();
        assertThat(cluster.calls()).as("not read before it is shown").doesNotContain("tenants");

        vm.screenProperty().set(Screen.TENANTS);
        assertThat(vm.tenants().tenants()).extracting(io.forgeflow.client.Tenant::name).containsExactly("acme");
        cluster.withTenant(new io.forgeflow.client.Tenant("beta", 1, null, null, 0, 0, 0));
        ticker.tick();
        assertThat(vm.tenants().tenants()).extracting(io.forgeflow.client.Tenant::name).containsExactly("acme", "beta");
    }

    @Test
    void theQueuesScreenReadsTheQueuesWhenShownAndKeepsThemFresh() {
        cluster.withQueue(new io.forgeflow.client.Queue("reports", false, null, null, 1, 1, 0, 0, 0, "acme"));
        vm.start();
        assertThat(cluster.calls()).as("not read before it is shown").doesNotContain("queues");

        vm.screenProperty().set(Screen.QUEUES);
        assertThat(vm.queues().queues()).extracting(io.forgeflow.client.Queue::name).containsExactly("reports");
        cluster.withQueue(new io.forgeflow.client.Queue("default", false, null, null, 0, 0, 0, 0, 0, "default"));
        ticker.tick();
        assertThat(vm.queues().queues()).extracting(io.forgeflow.client.Queue::name)
                .containsExactly("reports", "default");
    }

    @Test
    void aTenantBoundTokensTenantsScreenSaysWhyAndNeverAsks() {
        vm.setBoundTenant("acme");
        vm.start();
        vm.screenProperty().set(Screen.TENANTS);
        ticker.tick();

        assertThat(cluster.calls()).doesNotContain("tenants");
        assertThat(vm.tenants().refusedProperty().get()).startsWith("This token is bound to tenant acme;");
    }

    @Test
    void aDeadRunOnTheOverviewOpensWithItsErrorInOneStep() {
        vm.start();

        vm.overview().open(vm.overview().attention().get(0));

        assertThat(vm.screenProperty().get()).isEqualTo(Screen.RUNS);
        assertThat(vm.runDetail().errorProperty().get()).isEqualTo("exit code 1: disk full");
    }

    @Test
    void aJobsRunsOpenFiltered() {
        vm.start();
        vm.jobs().selectedProperty().set(vm.jobs().jobs().get(0));

        vm.jobs().showRunsOfSelected();

        assertThat(vm.screenProperty().get()).isEqualTo(Screen.RUNS);
        assertThat(vm.runs().jobFilterProperty().get()).isEqualTo("job_1");
    }

    @Test
    void aSubmittedJobAppearsInTheJobsListAndTheFormOpensEmptyNextTime() {
        vm.start();
        vm.form().nameProperty().set("hello");
        vm.form().commandProperty().set("echo hello");

        vm.form().submit();
        vm.showSubmitForm();

        assertThat(vm.jobs().jobs()).extracting(Job::name).contains("hello");
        assertThat(vm.form().nameProperty().get()).isEmpty();
        assertThat(vm.screenProperty().get()).isEqualTo(Screen.SUBMIT);
    }

    @Test
    void theRunsScreenFollowsARunToItsEndWithoutAClick() {
        vm.start();
        vm.showRunsOfJob("job_1");
        cluster.withRun(Fixtures.run("run_2", "job_1", Run.PENDING));
        ticker.tick();
        assertThat(vm.runs().runs()).extracting(Run::id).containsExactly("run_2", "run_1");
        vm.runs().selectedProperty().set(vm.runs().runs().get(0));
        assertThat(vm.runDetail().statusProperty().get()).isEqualTo(Run.PENDING);

        cluster.change("run_2", Run.SUCCEEDED);
        ticker.tick();

        assertThat(vm.runs().runs().get(0).status()).isEqualTo(Run.SUCCEEDED);
        assertThat(vm.runDetail().statusProperty().get()).isEqualTo(Run.SUCCEEDED);
        assertThat(vm.runs().selectedProperty().get().id()).isEqualTo("run_2");
    }

    @Test
    void aListPagedFurtherIsNotReloadedUnderTheOperator() {
        for (int i = 0; i < 600; i++) {
            cluster.withRun(Fixtures.run("bulk_" + i, "job_1", Run.SUCCEEDED));
        }
        vm.start();
        vm.screenProperty().set(Screen.RUNS);
        vm.runs().loadMore();
        int calls = cluster.calls().size();

        ticker.tick();

        assertThat(cluster.calls().subList(calls, cluster.calls().size())).as("no page of 500 runs is fetched")
                .noneMatch(c -> c.startsWith("runs") && c.endsWith(" 500"));
        assertThat(vm.runs().runs()).hasSize(601);
    }

    @Test
    void stopEndsTheLiveUpdates() {
        vm.start();

        vm.stop();

        assertThat(ticker.active()).isZero();
        assertThat(cluster.subscriptionClosed()).isTrue();
    }

    @Test
    void selectingAJobShowsItsWorkflowAndANodeOpensAnotherJob() {
        cluster.withJob(Fixtures.job("job_2", "restore", Job.ACTIVE)).withParents("job_2", null, "job_1");
        vm.start();
        vm.jobs().selectedProperty().set(vm.jobs().jobs().stream().filter(j -> j.id().equals("job_2")).findFirst()
                .orElseThrow());
        assertThat(vm.jobDetail().parents()).extracting(n -> n.id()).containsExactly("job_1");

        vm.jobDetail().openNode(vm.jobDetail().parents().get(0));

        assertThat(vm.screenProperty().get()).isEqualTo(Screen.JOBS);
        assertThat(vm.jobs().selectedProperty().get().id()).isEqualTo("job_1");
        assertThat(vm.jobDetail().titleProperty().get()).isEqualTo("backup (job_1)");
        assertThat(vm.jobDetail().children()).extracting(n -> n.id()).containsExactly("job_2");
    }

    @Test
    void aJobNotInTheListStillOpensInTheDetail() {
        vm.start();
        vm.jobs().selectedProperty().set(vm.jobs().jobs().get(0));
        cluster.withJob(Fixtures.job("job_9", "later", Job.ACTIVE));

        vm.showJob("job_9");

        assertThat(vm.jobs().selectedProperty().get()).isNull();
        assertThat(vm.jobDetail().titleProperty().get()).isEqualTo("later (job_9)");
    }

    @Test
    void theBatchLinkOpensTheBatchesScreenAndItPollsWhileOpen() {
        cluster.withBatch(new io.forgeflow.admin.cluster.BatchProgress("batch_1", null, Fixtures.T0, null, 2, 1, 0,
                0, 1, 0, 0, null, "open")).inBatch("job_1", "batch_1");
        vm.start();
        vm.jobs().selectedProperty().set(vm.jobs().jobs().get(0));

        vm.jobDetail().openBatch();

        assertThat(vm.screenProperty().get()).isEqualTo(Screen.BATCHES);
        assertThat(vm.batches().statusProperty().get()).isEqualTo("open");
        ticker.tick();
        assertThat(cluster.calls()).filteredOn(c -> c.equals("batch batch_1")).hasSize(2);
    }
}
