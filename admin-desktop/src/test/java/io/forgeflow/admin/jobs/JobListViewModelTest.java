package io.forgeflow.admin.jobs;

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
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JobListViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(Fixtures.job("job_1", "nightly-report", Job.ACTIVE))
            .withJob(Fixtures.job("job_2", "sync-crm", Job.PAUSED))
            .withJob(Fixtures.job("job_3", "backup", Job.ACTIVE));
    final Times times = new Times(ZoneId.of("America/New_York"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC));
    final JobListViewModel vm = new JobListViewModel(cluster, Async.sameThread(),
            new JobNames(cluster, Async.sameThread()), times, Navigator.NONE);

    @BeforeEach
    void load() {
        vm.refresh();
    }

    Job select(String id) {
        Job job = vm.jobs().stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
        vm.selectedProperty().set(job);
        return job;
    }

    @Test
    void refreshLoadsTheNewestFirst() {
        assertThat(vm.jobs()).extracting(Job::name).containsExactly("backup", "sync-crm", "nightly-report");
        assertThat(vm.countProperty().get()).isEqualTo("3 jobs");
    }

    @Test
    void theFilterTextNarrowsTheListWithoutAskingTheServer() {
        int calls = cluster.calls().size();

        vm.filterTextProperty().set("SYNC");

        assertThat(vm.visibleJobs()).extracting(Job::name).containsExactly("sync-crm");
        assertThat(vm.countProperty().get()).isEqualTo("1 of 3 jobs match");
        assertThat(cluster.calls()).hasSize(calls);
    }

    @Test
    void theStatusFilterAsksTheServer() {
        vm.statusFilterProperty().set(Job.PAUSED);

        assertThat(cluster.calls()).last().isEqualTo("jobs paused null 200");
        assertThat(vm.jobs()).extracting(Job::name).containsExactly("sync-crm");
    }

    @Test
    void pauseAndResumeFollowTheSelectedJobsStatus() {
        select("job_1");
        assertThat(vm.canPauseProperty().get()).isTrue();
        assertThat(vm.canResumeProperty().get()).isFalse();

        vm.pauseSelected();

        assertThat(cluster.calls()).last().isEqualTo("pause job_1");
        assertThat(vm.selectedProperty().get().status()).isEqualTo(Job.PAUSED);
        assertThat(vm.jobs().get(2).status()).isEqualTo(Job.PAUSED);
        assertThat(vm.messageProperty().get()).startsWith("Paused nightly-report");
        assertThat(vm.canResumeProperty().get()).isTrue();

        vm.resumeSelected();

        assertThat(vm.selectedProperty().get().status()).isEqualTo(Job.ACTIVE);
        assertThat(vm.messageProperty().get()).isEqualTo("Resumed nightly-report; next run 2026-07-01 21:00:00 EDT.");
    }

    @Test
    void cancelWaitsForAConfirmation() {
        select("job_3");

        vm.cancelSelected();

        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("cancel"));
        assertThat(vm.confirmationProperty().get().question()).contains("backup").contains("cannot be undone");

        vm.confirm();

        assertThat(cluster.calls()).last().isEqualTo("cancel job_3");
        assertThat(vm.confirmationProperty().get()).isNull();
        assertThat(vm.selectedProperty().get().status()).isEqualTo(Job.CANCELLED);
        assertThat(vm.canCancelProperty().get()).isFalse();
        assertThat(vm.canTriggerProperty().get()).isFalse();
    }

    @Test
    void deleteWaitsForAConfirmationAndTakesTheJobOffTheList() {
        select("job_2");

        vm.deleteSelected();

        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("delete"));
        assertThat(vm.confirmationProperty().get().question()).contains("Delete job \"sync-crm\"?");
        vm.confirm();

        assertThat(cluster.calls()).last().isEqualTo("delete job_2 false");
        assertThat(cluster.jobById("job_2").status()).isEqualTo(Job.DELETED);
        assertThat(vm.jobs()).extracting(Job::id).containsExactly("job_3", "job_1");
        assertThat(vm.selectedProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEqualTo("Deleted sync-crm.");
        assertThat(vm.canDeleteProperty().get()).isFalse();
    }

    @Test
    void deletingAJobWithARunningRunAsksAgainAndCancelsThatRunOnlyWhenConfirmed() {
        cluster.withRun(Fixtures.run("run_9", "job_3", Run.RUNNING));
        select("job_3");
        vm.deleteSelected();
        vm.confirm();

        assertThat(cluster.calls()).last().isEqualTo("delete job_3 false");
        assertThat(cluster.jobById("job_3").status()).isEqualTo(Job.ACTIVE);
        assertThat(vm.confirmationProperty().get().question()).contains("is running")
                .contains("Cancel the running run and delete");
        assertThat(vm.confirmationProperty().get().confirmLabel()).isEqualTo("Cancel run and delete");

        vm.confirm();

        assertThat(cluster.calls()).last().isEqualTo("delete job_3 true");
        assertThat(cluster.jobById("job_3").status()).isEqualTo(Job.DELETED);
        assertThat(vm.messageProperty().get()).isEqualTo("Deleted backup after cancelling its running run.");
    }

    @Test
    void aDismissedCancelDoesNothing() {
        select("job_3");
        vm.cancelSelected();

        vm.dismiss();

        assertThat(vm.confirmationProperty().get()).isNull();
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("cancel"));
    }

    @Test
    void aRefusedActionShowsTheServersReason() {
        select("job_1");
        cluster.failNext("pause", new ForgeFlowApiException(409, "job job_1 is cancelled", null));

        vm.pauseSelected();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).isEqualTo("Could not pause job nightly-report: job job_1 is cancelled "
                + "(HTTP 409)");
    }

    @Test
    void triggerReportsTheNewRun() {
        select("job_2");

        vm.triggerSelected();

        assertThat(vm.messageProperty().get()).matches("Triggered sync-crm: run run_t\\d+ is pending\\.");
    }

    @Test
    void loadMoreFollowsTheCursor() {
        FakeClusterClient many = new FakeClusterClient();
        for (int i = 0; i < 250; i++) {
            many.withJob(Fixtures.job("job_" + i, "job-" + i, Job.ACTIVE));
        }
        JobListViewModel list = new JobListViewModel(many, Async.sameThread(), new JobNames(many, Async.sameThread()),
                times, Navigator.NONE);
        list.refresh();
        assertThat(list.jobs()).hasSize(200);
        assertThat(list.hasMoreProperty().get()).isTrue();

        list.loadMore();

        assertThat(many.calls()).last().isEqualTo("jobs null 200 200");
        assertThat(list.jobs()).hasSize(250);
        assertThat(list.hasMoreProperty().get()).isFalse();
    }

    @Test
    void schedulesReadInTheJobsZoneAndNextRunsInLocalAndUtc() {
        Job cron = Fixtures.job("j", "n", Job.ACTIVE);
        Job once = new Job("o", "once", "shell", Map.of(), null, Instant.parse("2026-07-01T10:00:00Z"), "Asia/Tokyo",
                5, 3, 300, "skip", null, Job.ACTIVE, Instant.parse("2026-07-01T10:00:00Z"), Fixtures.T0, Fixtures.T0);

        assertThat(vm.scheduleOf(cron)).isEqualTo("0 3 * * *  (Europe/Berlin)");
        assertThat(vm.scheduleOf(once)).isEqualTo("once at 2026-07-01 19:00:00 JST");
        assertThat(vm.nextRunLocalOf(once)).isEqualTo("2026-07-01 06:00:00 EDT");
        assertThat(vm.nextRunUtcOf(once)).isEqualTo("2026-07-01 10:00:00Z");
    }

    @Test
    void aNewJobGoesOnTopAndIsSelected() {
        Job fresh = Fixtures.job("job_9", "fresh", Job.ACTIVE);

        vm.upsert(fresh);

        assertThat(vm.jobs().get(0)).isEqualTo(fresh);
        assertThat(vm.selectedProperty().get()).isEqualTo(fresh);
    }
}
