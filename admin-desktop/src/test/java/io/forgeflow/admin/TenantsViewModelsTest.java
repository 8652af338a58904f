package io.forgeflow.admin;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.connect.ConnectionViewModel;
import io.forgeflow.admin.jobs.JobFormViewModel;
import io.forgeflow.admin.jobs.JobFormViewModel.Field;
import io.forgeflow.admin.jobs.JobListViewModel;
import io.forgeflow.admin.overview.LiveMode;
import io.forgeflow.admin.overview.OverviewViewModel;
import io.forgeflow.admin.runs.RunDetailViewModel;
import io.forgeflow.admin.runs.RunListViewModel;
import io.forgeflow.admin.runs.TraceViewer;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.InMemorySettingsStore;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.admin.testing.ManualTicker;
import io.forgeflow.admin.workflows.JobDetailViewModel;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Node;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants (issue 42) in the desktop's view models, against the in-memory cluster: the connect screen's tenant (the
 * client acts in it) and a tenant-bound token (refused /api/stats, proven by its jobs), the Tenant column only while a
 * row is outside the default tenant, the tenant in job and run details and in the submit form, and the overview's
 * message instead of the cluster views for a tenant-bound token.
 */
class TenantsViewModelsTest {
    static final String ACME_CLUSTER_REFUSED = "this token acts in tenant 'acme' only, and GET /api/stats is "
            + "cluster-wide: use a cluster-wide token (FORGEFLOW_API_TOKENS)";
    static final String ACME_NAMES_BETA = "this token acts in tenant 'acme' only and may not name tenant 'beta': use "
            + "a token of that tenant, or a cluster-wide one (FORGEFLOW_API_TOKENS)";

    static ForgeFlowApiException forbidden(String message) {
        return new ForgeFlowApiException(403, message, null, "tenant_forbidden");
    }

    final Times times = new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC));

    @Nested
    class Connect {
        final InMemorySettingsStore settings = new InMemorySettingsStore();
        final FakeClusterClient cluster = new FakeClusterClient()
                .withJob(Fixtures.inTenant(Fixtures.job("job_a", "acme-nightly", Job.ACTIVE), "acme"));
        final ConnectionViewModel vm = new ConnectionViewModel((url, token) -> cluster, settings,
                Async.sameThread());

        @Test
        void aTenantTypedOnTheConnectScreenMakesTheClientActInItAndIsRemembered() {
            vm.tenantProperty().set(" acme ");

            vm.connect();

            assertThat(cluster.calls()).containsExactly("inTenant acme", "stats", "nodes");
            assertThat(vm.connectedProperty().get().tenant()).isEqualTo("acme");
            assertThat(vm.messageProperty().get()).isEqualTo("Connected to http://127.0.0.1:8080 in tenant acme");
            assertThat(vm.boundTenantProperty().get()).isEmpty();
            assertThat(settings.get("tenant", null)).isEqualTo("acme");
            assertThat(new ConnectionViewModel((u, t) -> cluster, settings, Async.sameThread())
                    .tenantProperty().get()).isEqualTo("acme");
        }

        @Test
        void anEmptyTenantActsAcrossTenants() {
            vm.connect();

            assertThat(cluster.calls()).containsExactly("stats", "nodes");
            assertThat(vm.connectedProperty().get().tenant()).isNull();
            assertThat(vm.messageProperty().get()).isEqualTo("Connected to http://127.0.0.1:8080");
        }

        @Test
        void aTenantBoundTokenIsRefusedStatsAndIsProvenByItsJobsInstead() {
            cluster.failNext("stats", forbidden(ACME_CLUSTER_REFUSED));

            vm.connect();

            assertThat(vm.failedProperty().get()).isFalse();
            assertThat(vm.connectedProperty().get()).isSameAs(cluster);
            assertThat(cluster.calls()).containsExactly("stats", "jobs null null 1");
            assertThat(vm.boundTenantProperty().get()).isEqualTo("acme");
            assertThat(vm.messageProperty().get()).isEqualTo("Connected to http://127.0.0.1:8080 as tenant acme "
                    + "(this token is bound to it; cluster views need a cluster-wide token)");
        }

        @Test
        void aTokenBoundToAnotherTenantThanTheOnePickedSaysWhichToPick() {
            vm.tenantProperty().set("beta");
            cluster.failNext("stats", forbidden(ACME_NAMES_BETA));

            vm.connect();

            assertThat(vm.connectedProperty().get()).isNull();
            assertThat(cluster.isClosed()).isTrue();
            assertThat(vm.failedProperty().get()).isTrue();
            assertThat(vm.messageProperty().get()).startsWith("The server refused the tenant: " + ACME_NAMES_BETA)
                    .endsWith("This token is bound to tenant acme: enter acme or leave Tenant empty, then Retry.");
        }

        @Test
        void aMalformedTenantIsRefusedBeforeAnythingIsSent() {
            vm.tenantProperty().set("Acme Corp");

            vm.connect();

            assertThat(cluster.calls()).isEmpty();
            assertThat(vm.failedProperty().get()).isTrue();
            assertThat(vm.messageProperty().get()).startsWith("\"Acme Corp\" is not a tenant name");
        }
    }

    @Nested
    class Lists {
        final FakeClusterClient cluster = new FakeClusterClient()
                .withJob(Fixtures.job("job_1", "plain", Job.ACTIVE))
                .withRun(Fixtures.run("run_1", "job_1", Run.SUCCEEDED));
        final JobNames names = new JobNames(cluster, Async.sameThread());
        final JobListViewModel jobs = new JobListViewModel(cluster, Async.sameThread(), names, times,
                Navigator.NONE);
        final RunDetailViewModel runDetail = new RunDetailViewModel(cluster, Async.sameThread(), names, times,
                new TraceViewer());
        final RunListViewModel runs = new RunListViewModel(cluster, Async.sameThread(), names, times, runDetail);

        @Test
        void oneTenantLooksAsBeforeNoColumnAndNoTenantInDetails() {
            cluster.withJob(Fixtures.inTenant(Fixtures.job("job_2", "also-plain", Job.ACTIVE), "default"));
            jobs.refresh();
            runs.refresh();
            runDetail.load("run_1");

            assertThat(jobs.jobs()).hasSize(2);
            assertThat(jobs.tenantColumnVisibleProperty().get()).isFalse();
            assertThat(runs.tenantColumnVisibleProperty().get()).isFalse();
            assertThat(runDetail.summaryProperty().get()).doesNotContain("tenant");
        }

        @Test
        void theTenantColumnShowsWhileARowIsOutsideTheDefaultTenant() {
            cluster.withJob(Fixtures.inTenant(Fixtures.job("job_2", "acme-sync", Job.ACTIVE), "acme"))
                    .withRun(Fixtures.inTenant(Fixtures.run("run_2", "job_2", Run.PENDING), "acme"));
            jobs.refresh();
            runs.refresh();

            assertThat(jobs.tenantColumnVisibleProperty().get()).isTrue();
            assertThat(jobs.jobs()).extracting(JobListViewModel::tenantOf).containsExactly("acme", "default");
            assertThat(runs.tenantColumnVisibleProperty().get()).isTrue();
            assertThat(runs.runs()).extracting(RunListViewModel::tenantOf).containsExactly("acme", "default");

            jobs.namePrefixProperty().set("plain");
            jobs.applyFilters();
            assertThat(jobs.jobs()).extracting(Job::id).containsExactly("job_1");
            assertThat(jobs.tenantColumnVisibleProperty().get()).as("only default rows left").isFalse();
        }

        @Test
        void detailsNameATenantOutsideTheDefault() {
            cluster.withJob(Fixtures.inTenant(Fixtures.job("job_2", "acme-sync", Job.ACTIVE), "acme"))
                    .withRun(Fixtures.inTenant(Fixtures.run("run_2", "job_2", Run.PENDING), "acme"));
            JobDetailViewModel jobDetail = new JobDetailViewModel(cluster, Async.sameThread(), names, Navigator.NONE);

            runDetail.load("run_2");
            jobDetail.open("job_2");

            assertThat(runDetail.summaryProperty().get()).endsWith(" · tenant acme");
            assertThat(jobDetail.tenantProperty().get()).isEqualTo("acme");
            jobDetail.open("job_1");
            assertThat(jobDetail.tenantProperty().get()).isEmpty();
        }

        @Test
        void actingInATenantNamesTheTenantEvenWhenItIsTheDefault() {
            cluster.withRun(Fixtures.inTenant(Fixtures.run("run_1", "job_1", Run.SUCCEEDED), "default"));
            runDetail.load("run_1");
            assertThat(runDetail.summaryProperty().get()).doesNotContain("tenant");

            cluster.inTenant("default");
            runDetail.load("run_1");

            assertThat(runDetail.summaryProperty().get()).endsWith(" · tenant default");
        }
    }

    @Nested
    class SubmitForm {
        final FakeClusterClient cluster = new FakeClusterClient();
        final JobFormViewModel form = new JobFormViewModel(cluster, Async.sameThread(), times, Navigator.NONE);

        void fill() {
            form.nameProperty().set("hello");
            form.commandProperty().set("echo hello");
        }

        @Test
        void theTenantFieldIsSentAsTheRequestsTenant() {
            fill();
            form.tenantProperty().set("beta");

            form.submit();

            assertThat(cluster.submittedRequests()).extracting(r -> r.tenant()).containsExactly("beta");
        }

        @Test
        void anEmptyTenantSendsNone() {
            fill();

            form.submit();

            assertThat(cluster.submittedRequests()).extracting(r -> r.tenant()).containsExactly((String) null);
        }

        @Test
        void aMalformedTenantIsShownOnItsFieldAndNothingIsSent() {
            fill();
            form.tenantProperty().set("Beta!");

            form.submit();

            assertThat(form.errorProperty(Field.TENANT).get()).startsWith("Use 1 to 63 lower-case letters");
            assertThat(cluster.submittedRequests()).isEmpty();
        }

        @Test
        void theServersRefusalOfTheTenantIsShownOnTheTenantField() {
            fill();
            form.tenantProperty().set("beta");
            cluster.failNext("submit", new ForgeFlowApiException(403, ACME_NAMES_BETA, "tenant", "tenant_forbidden"));

            form.submit();

            assertThat(form.errorProperty(Field.TENANT).get()).isEqualTo(ACME_NAMES_BETA);
            assertThat(form.messageProperty().get()).isEqualTo("The server rejected the job: " + ACME_NAMES_BETA);
        }
    }

    @Nested
    class Overview {
        final FakeClusterClient cluster = new FakeClusterClient()
                .withJob(Fixtures.inTenant(Fixtures.job("job_1", "acme-sync", Job.ACTIVE), "acme"))
                .withRun(Fixtures.inTenant(Fixtures.run("run_1", "job_1", Run.DEAD), "acme"))
                .withNode(new Node("w1", List.of("worker"), "0.1", null, Instant.parse("2026-07-01T09:29:58Z"), 0,
                        true));
        final ManualTicker ticker = new ManualTicker();
        final OverviewViewModel vm = new OverviewViewModel(cluster, Async.sameThread(), ticker,
                Duration.ofSeconds(2), new JobNames(cluster, Async.sameThread()), times, Navigator.NONE);

        @Test
        void aTenantBoundTokenSeesWhyTheClusterViewsAreEmptyAndStillItsDeadRunsAndFeed() {
            cluster.failNext("stats", forbidden(ACME_CLUSTER_REFUSED));

            vm.start();
            cluster.failStream(forbidden(ACME_CLUSTER_REFUSED), false);

            String message = "This token is bound to tenant acme; cluster views need a cluster-wide token.";
            assertThat(vm.clusterNoteProperty().get()).isEqualTo(message);
            assertThat(vm.problemProperty().get()).as("not an error: the overview works for its tenant").isEmpty();
            assertThat(vm.nodes()).isEmpty();
            assertThat(vm.attention()).extracting(Run::id).containsExactly("run_1");
            assertThat(vm.feed()).extracting(e -> e.runId()).containsExactly("run_1");
            assertThat(vm.modeProperty().get()).isEqualTo(LiveMode.POLLING);
            assertThat(vm.liveStatusProperty().get()).isEqualTo("Polling every 2 s (the event stream is "
                    + "cluster-wide; this token is bound to tenant acme).");

            List<String> before = new ArrayList<>(cluster.calls());
            ticker.tick();
            List<String> next = cluster.calls().subList(before.size(), cluster.calls().size());
            assertThat(next).as("no more asking for what is refused").doesNotContain("stats", "nodes")
                    .contains("runs null dead null 10", "runs null null null 50");
        }

        @Test
        void aClusterWideTokenHasNoNote() {
            vm.start();

            assertThat(vm.clusterNoteProperty().get()).isEmpty();
            assertThat(vm.nodes()).extracting(Node::workerId).containsExactly("w1");
            assertThat(vm.deadProperty().get()).isEqualTo(1);
        }
    }
}
