package io.forgeflow.admin.jobs;

import io.forgeflow.admin.jobs.BackfillViewModel.Field;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class BackfillViewModelTest {
    final Job nightly = Fixtures.job("job_1", "nightly", Job.ACTIVE); // Europe/Berlin
    final Job oneOff = new Job("job_2", "once", "shell", Map.of("command", "true"), null, Fixtures.T0, "UTC", 5, 3, 300,
            "skip", null, Job.ACTIVE, Fixtures.T0, Fixtures.T0, Fixtures.T0);
    final FakeClusterClient cluster = new FakeClusterClient().withJob(nightly).withJob(oneOff);
    final BackfillViewModel vm = new BackfillViewModel(cluster, Async.sameThread());

    String error(Field field) {
        return vm.errorProperty(field).get();
    }

    @Test
    void aBackfillSaysHowManyTicksAndRunsAndASecondOneCreatesNothing() {
        vm.setJob(nightly);
        vm.fromProperty().set("2026-07-01T00:00:00Z");
        vm.toProperty().set("2026-07-01T05:00:00Z");
        vm.overlapProperty().set("queue_one");

        vm.backfill();

        assertThat(cluster.calls()).last().isEqualTo(
                "backfill job_1 2026-07-01T00:00:00Z 2026-07-01T05:00:00Z queue_one");
        assertThat(vm.messageProperty().get()).isEqualTo(
                "Backfill of nightly: 6 ticks, 6 runs created, 0 already had one.");
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.resultProperty().get().created()).isEqualTo(6);

        vm.backfill();

        assertThat(vm.messageProperty().get()).isEqualTo(
                "Backfill of nightly: 6 ticks, 0 runs created, 6 already had one.");
    }

    /** Issue 45: the bar follows the backfill's runs (GET .../backfill/{bid}) until it is done, then stops asking. */
    @Test
    void theBackfillsLaterProgressIsShownUntilItIsDone() {
        vm.setJob(nightly);
        vm.fromProperty().set("2026-07-01T00:00:00Z");
        vm.toProperty().set("2026-07-01T05:00:00Z");
        vm.backfill();
        io.forgeflow.client.Backfill first = vm.resultProperty().get();
        assertThat(first.done()).isFalse();
        cluster.withBackfillProgress(first.id(),
                progressed(first, false, Map.of("pending", 3L, "running", 1L, "succeeded", 2L)),
                progressed(first, true, Map.of("succeeded", 5L, "dead", 1L)));

        vm.poll();

        assertThat(cluster.calls()).last().isEqualTo("backfillProgress job_1 " + first.id());
        assertThat(vm.messageProperty().get()).isEqualTo("Backfill of nightly: 6 ticks, 6 runs created, 0 already "
                + "had one; 3 pending, 1 running, 2 succeeded.");
        assertThat(vm.progressProperty().get()).isEqualTo(2.0 / 6);

        vm.poll();

        assertThat(vm.messageProperty().get()).endsWith("; done: 5 succeeded, 1 dead.");
        assertThat(vm.resultProperty().get().done()).isTrue();
        assertThat(vm.progressProperty().get()).isEqualTo(1.0);
        int calls = cluster.calls().size();
        vm.poll();
        assertThat(cluster.calls()).as("done: no more reads").hasSize(calls);
    }

    @Test
    void progressOfABackfillOfAnotherJobIsNotShownAndAGoneOneIsNoLongerFollowed() {
        vm.setJob(nightly);
        vm.fromProperty().set("2026-07-01T00:00:00Z");
        vm.toProperty().set("2026-07-01T01:00:00Z");
        vm.backfill();
        String id = vm.resultProperty().get().id();

        vm.poll(); // no progress kept for it: a 404

        assertThat(vm.resultProperty().get().done()).isTrue();
        assertThat(vm.messageProperty().get()).endsWith("Its progress is no longer kept (retention).");
        int calls = cluster.calls().size();
        vm.poll();
        assertThat(cluster.calls()).hasSize(calls);
        assertThat(cluster.calls()).contains("backfillProgress job_1 " + id);

        vm.setJob(oneOff);
        vm.poll();
        assertThat(cluster.calls()).hasSize(calls);
    }

    static io.forgeflow.client.Backfill progressed(io.forgeflow.client.Backfill b, boolean done, Map<String, Long> runs) {
        return new io.forgeflow.client.Backfill(b.id(), b.jobId(), b.from(), b.to(), b.overlap(), b.ticks(),
                b.created(), b.skipped(), b.createdAt(), done, runs);
    }

    @Test
    void timesWithoutAnOffsetAreReadInTheJobsZone() {
        vm.setJob(nightly);
        vm.fromProperty().set("2026-07-01 02:00");
        vm.toProperty().set("2026-07-01T02:00:00+02:00");

        vm.backfill();

        assertThat(cluster.calls()).last().isEqualTo(
                "backfill job_1 2026-07-01T00:00:00Z 2026-07-01T00:00:00Z allow");
        assertThat(vm.messageProperty().get()).endsWith(": 1 tick, 1 run created, 0 already had one.");
    }

    @Test
    void theServers422NamingToIsShownNextToToAndEditingClearsIt() {
        vm.setJob(nightly);
        vm.fromProperty().set("2020-01-01T00:00:00Z");
        vm.toProperty().set("2026-01-01T00:00:00Z");
        cluster.failNext("backfill", new ForgeFlowApiException(422,
                "to: more than 10000 ticks; the 10001st is 2021-02-22T17:00:00Z", "to", "validation_failed"));

        vm.backfill();

        assertThat(error(Field.TO)).isEqualTo("to: more than 10000 ticks; the 10001st is 2021-02-22T17:00:00Z");
        assertThat(error(Field.FROM)).isEmpty();
        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).startsWith("The server refused the backfill: to: more than 10000");

        vm.toProperty().set("2021-01-01T00:00:00Z");
        assertThat(error(Field.TO)).isEmpty();
    }

    @Test
    void theServers422NamingFromIsShownNextToFrom() {
        vm.setJob(nightly);
        vm.fromProperty().set("2026-07-01T00:00:00Z");
        vm.toProperty().set("2026-07-02T00:00:00Z");
        cluster.failNext("backfill", new ForgeFlowApiException(422, "from: before the job was created", "from"));

        vm.backfill();

        assertThat(error(Field.FROM)).isEqualTo("from: before the job was created");
        assertThat(error(Field.TO)).isEmpty();
    }

    @Test
    void aMissingOrReversedRangeIsExplainedAndNothingIsSent() {
        vm.setJob(nightly);
        vm.toProperty().set("yesterday");

        vm.backfill();

        assertThat(error(Field.FROM)).startsWith("Required");
        assertThat(error(Field.TO)).startsWith("Write the time as");

        vm.fromProperty().set("2026-07-02T00:00:00Z");
        vm.toProperty().set("2026-07-01T00:00:00Z");
        vm.backfill();

        assertThat(error(Field.FROM)).isEmpty();
        assertThat(error(Field.TO)).isEqualTo("Must not be before from.");
        assertThat(vm.messageProperty().get()).isEqualTo("Fix the fields marked in red, then backfill again.");
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("backfill"));
    }

    @Test
    void onlyARecurringActiveOrPausedJobCanBeBackfilled() {
        assertThat(vm.canBackfillProperty().get()).isFalse();
        vm.setJob(oneOff);
        assertThat(vm.canBackfillProperty().get()).isFalse();
        vm.setJob(Fixtures.withStatus(nightly, Job.CANCELLED));
        assertThat(vm.canBackfillProperty().get()).isFalse();
        vm.setJob(Fixtures.withStatus(nightly, Job.PAUSED));
        assertThat(vm.canBackfillProperty().get()).isTrue();
    }

    @Test
    void anotherJobClearsTheLastAnswer() {
        vm.setJob(nightly);
        vm.fromProperty().set("2026-07-01T00:00:00Z");
        vm.toProperty().set("2026-07-01T00:00:00Z");
        vm.backfill();
        assertThat(vm.resultProperty().get()).isNotNull();

        vm.setJob(oneOff);

        assertThat(vm.resultProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEmpty();
    }

    @Test
    void theSelectedJobOfTheJobsScreenIsTheOneBackfilled() {
        JobListViewModel list = new JobListViewModel(cluster, Async.sameThread(),
                new io.forgeflow.admin.cluster.JobNames(cluster, Async.sameThread()),
                new io.forgeflow.admin.support.Times(java.time.ZoneId.of("UTC"),
                        java.time.Clock.fixed(Fixtures.T0, java.time.ZoneOffset.UTC)),
                io.forgeflow.admin.support.Navigator.NONE);

        list.selectedProperty().set(nightly);

        assertThat(list.backfill().jobProperty().get()).isEqualTo(nightly);
        assertThat(list.backfill().canBackfillProperty().get()).isTrue();
    }
}
