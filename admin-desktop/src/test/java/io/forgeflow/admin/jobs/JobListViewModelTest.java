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
import io.forgeflow.admin.cluster.JobQuery;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
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

    @Nested
    class ServerSideFilters {
        final FakeClusterClient labelled = new FakeClusterClient();
        final JobListViewModel list = new JobListViewModel(labelled, Async.sameThread(),
                new JobNames(labelled, Async.sameThread()), times, Navigator.NONE);

        @BeforeEach
        void seed() {
            for (int i = 0; i < 260; i++) {
                Job base = Fixtures.fullJob("job_" + i, (i % 2 == 0 ? "nightly-" : "sync-") + i);
                Map<String, String> labels = i % 4 == 0 ? Map.of("team", "ops", "env", "prod")
                        : Map.of("team", "ops", "env", "dev");
                labelled.withJob(Fixtures.patched(base, Map.of("labels", labels, "queue",
                        i % 3 == 0 ? "reports" : "default")));
            }
        }

        @Test
        void everyFilterIsSentToTheServerAndNotAppliedToTheLoadedPage() {
            list.namePrefixProperty().set("nightly-");
            list.queueFilterProperty().set("reports");
            list.labelFilterProperty().set("team:ops, env:prod");
            assertThat(labelled.calls()).as("text filters wait for Filter (or Enter)").isEmpty();

            list.statusFilterProperty().set(Job.ACTIVE);

            assertThat(labelled.calls()).containsExactly("jobs active null 200 [status=active queue=reports "
                    + "label=env:prod label=team:ops name_prefix=nightly-]");
            assertThat(list.queryProperty().get()).isEqualTo(new JobQuery(Job.ACTIVE, "reports",
                    Map.of("team", "ops", "env", "prod"), "nightly-"));
            // i % 12 == 0 below 260: 0, 12, ..., 252
            assertThat(list.jobs()).hasSize(22).allSatisfy(j -> {
                assertThat(j.name()).startsWith("nightly-");
                assertThat(j.queue()).isEqualTo("reports");
                assertThat(j.labels()).containsEntry("env", "prod");
            });
            assertThat(list.countProperty().get()).isEqualTo("22 jobs matching status=active queue=reports "
                    + "label=env:prod label=team:ops name_prefix=nightly-");
        }

        @Test
        void loadMoreKeepsTheAppliedFilterEvenAfterTheFieldsChange() {
            list.labelFilterProperty().set("team:ops");
            list.applyFilters();
            assertThat(list.jobs()).hasSize(200);
            assertThat(list.hasMoreProperty().get()).isTrue();

            list.labelFilterProperty().set("env:prod"); // typed, not applied
            list.loadMore();

            assertThat(labelled.calls()).last().isEqualTo("jobs null 200 200 [label=team:ops]");
            assertThat(list.jobs()).hasSize(260);
        }

        @Test
        void aMalformedLabelFilterIsExplainedAndNothingIsSent() {
            list.labelFilterProperty().set("team=ops");

            list.applyFilters();

            assertThat(list.filterErrorProperty().get()).isEqualTo("Labels: 'team=ops' has no ':': write key:value, "
                    + "several separated by commas, e.g. team:ops, env:prod.");
            assertThat(labelled.calls()).isEmpty();

            list.labelFilterProperty().set("Team:ops");
            list.applyFilters();
            assertThat(list.filterErrorProperty().get()).startsWith("Labels: 'Team' is not a label key");

            list.labelFilterProperty().set("team:ops");
            list.applyFilters();
            assertThat(list.filterErrorProperty().get()).isEmpty();
            assertThat(labelled.calls()).containsExactly("jobs null null 200 [label=team:ops]");
        }

        @Test
        void clearFiltersShowsEveryJobAgain() {
            list.queueFilterProperty().set("reports");
            list.applyFilters();
            assertThat(list.jobs()).hasSize(87);

            list.clearFilters();

            assertThat(list.queueFilterProperty().get()).isEmpty();
            assertThat(labelled.calls()).last().isEqualTo("jobs null null 200");
            assertThat(list.jobs()).hasSize(200);
        }

        @Test
        void theServersRefusalOfAFilterIsShown() {
            labelled.failNext("jobs", new ForgeFlowApiException(422, "name_prefix must be 1 to 200 characters",
                    "name_prefix"));
            list.namePrefixProperty().set("x");

            list.applyFilters();

            assertThat(list.failedProperty().get()).isTrue();
            assertThat(list.messageProperty().get()).isEqualTo("Could not load the jobs: name_prefix must be 1 to "
                    + "200 characters (HTTP 422)");
        }
    }

    @Test
    void editOpensTheFormOnTheSelectedJobAndASavedJobRefreshesTheList() {
        java.util.List<Job> opened = new java.util.ArrayList<>();
        JobListViewModel list = new JobListViewModel(cluster, Async.sameThread(), new JobNames(cluster,
                Async.sameThread()), times, new Navigator() {
        @Override
        public void showJob(String jobId) {
        }

        @Override
        public void showBatch(String batchId) {
        }

                    @Override
                    public void showRun(String runId) {
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
                    public void showEditForm(Job job) {
                        opened.add(job);
                    }
                });
        list.refresh();
        list.selectedProperty().set(list.jobs().get(0));
        assertThat(list.canEditProperty().get()).isTrue();

        list.editSelected();

        assertThat(opened).extracting(Job::id).containsExactly("job_3");

        Job changed = cluster.update("job_3", io.forgeflow.client.JobUpdate.create().name("backup-v2"), false);
        int calls = cluster.calls().size();
        list.saved(changed);

        assertThat(list.jobs().get(0).name()).isEqualTo("backup-v2");
        assertThat(list.messageProperty().get()).isEqualTo("Saved backup-v2.");
        assertThat(cluster.calls().subList(calls, cluster.calls().size())).containsExactly("jobs null null 200");
    }

    @Test
    void aCancelledJobCannotBeEdited() {
        cluster.withJob(Fixtures.job("job_4", "old", Job.CANCELLED));
        vm.refresh();

        select("job_4");

        assertThat(vm.canEditProperty().get()).isFalse();
    }

    @Test
    void theStatusFilterAsksTheServer() {
        vm.statusFilterProperty().set(Job.PAUSED);

        assertThat(cluster.calls()).last().isEqualTo("jobs paused null 200");
        assertThat(vm.jobs()).extracting(Job::name).containsExactly("sync-crm");
    }

    @Test
    void aPauseSendsItsNoteAndTheStatusShowsItWithWhoPaused() {
        select("job_1");
        vm.pauseNoteProperty().set("  vendor outage ");

        vm.pauseSelected();

        assertThat(cluster.calls()).last().isEqualTo("pause job_1 vendor outage");
        assertThat(vm.pauseNoteProperty().get()).as("cleared after the pause").isEmpty();
        assertThat(vm.statusOf(vm.selectedProperty().get())).isEqualTo("paused: vendor outage (by token 1)");
        vm.resumeSelected();
        vm.pauseNoteProperty().set(" ");
        vm.pauseSelected();
        assertThat(cluster.calls()).last().as("a blank note is none").isEqualTo("pause job_1");
    }

    @Test
    void theStatusShowsRunsFiredOfMaxRunsAndTheWindowItsEndsAndJitter() {
        Job plain = io.forgeflow.admin.testing.Fixtures.fullJob("job_9", "steered");
        Job steered = new Job(plain.id(), plain.name(), plain.executor(), plain.payload(), plain.cronExpr(),
                plain.runAt(), plain.timezone(), plain.priority(), plain.maxAttempts(), plain.timeoutSeconds(),
                plain.catchUp(), plain.idempotencyKey(), plain.status(), plain.nextRunAt(), plain.createdAt(),
                plain.updatedAt(), plain.queue(), plain.concurrencyKey(), plain.maxConcurrent(), plain.overlap(),
                plain.waitingFor(), plain.retry(), plain.labels(), plain.traceId(), plain.dependsOn(),
                plain.onParentFailure(), plain.batchId(), plain.parents(), plain.children(),
                java.time.Instant.parse("2026-07-01T00:00:00Z"), java.time.Instant.parse("2026-08-01T00:00:00Z"), 5,
                30, 3, 2, null, null);

        assertThat(vm.statusOf(steered)).isEqualTo("active, 2 of 5 runs");
        assertThat(vm.windowOf(steered)).startsWith("from ").contains(" until ").endsWith(", jitter 30s");
        assertThat(vm.windowOf(plain)).isEmpty();
        assertThat(vm.statusOf(plain)).isEqualTo("active");
    }

    @Test
    void theStatusShowsDeadRunsInARowAgainstPauseAfterFailures() {
        assertThat(vm.statusOf(io.forgeflow.admin.testing.Fixtures.streakJob("job_9", "flaky", 2)))
                .isEqualTo("active, 0 of 100 runs, 2 of 3 dead in a row");
        assertThat(vm.statusOf(io.forgeflow.admin.testing.Fixtures.streakJob("job_9", "flaky", 0)))
                .as("no streak: nothing to say").isEqualTo("active, 0 of 100 runs");
    }

    @Test
    void theNoticesColumnShowsTheEventsAndWhereTheyGo() {
        Job plain = io.forgeflow.admin.testing.Fixtures.fullJob("job_9", "watched");
        Job watched = new Job(plain.id(), plain.name(), plain.executor(), plain.payload(), plain.cronExpr(),
                plain.runAt(), plain.timezone(), plain.priority(), plain.maxAttempts(), plain.timeoutSeconds(),
                plain.catchUp(), plain.idempotencyKey(), plain.status(), plain.nextRunAt(), plain.createdAt(),
                plain.updatedAt(), plain.queue(), plain.concurrencyKey(), plain.maxConcurrent(), plain.overlap(),
                plain.waitingFor(), plain.retry(), plain.labels(), plain.traceId(), plain.dependsOn(),
                plain.onParentFailure(), plain.batchId(), plain.parents(), plain.children(), null, null, null, 0,
                null, 0, null, null, null, null,
                io.forgeflow.client.Notify.of("https://hooks.example.com/ff", "dead", "recovered"));

        assertThat(vm.noticesOf(watched)).isEqualTo("dead, recovered \u2192 https://hooks.example.com/ff");
        assertThat(vm.noticesOf(plain)).isEmpty();
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
