package io.forgeflow.admin.jobs;

import io.forgeflow.admin.jobs.JobFormViewModel.Field;
import io.forgeflow.admin.jobs.JobFormViewModel.ScheduleMode;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.ScheduledFire;
import io.forgeflow.client.SubmitResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JobFormViewModelTest {
    final FakeClusterClient cluster = new FakeClusterClient();
    final Times times = new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC));
    final JobFormViewModel vm = new JobFormViewModel(cluster, Async.sameThread(), times, Navigator.NONE);
    final List<Job> accepted = new ArrayList<>();

    {
        vm.setOnSubmitted(accepted::add);
    }

    void fillShellJob() {
        vm.nameProperty().set("hello");
        vm.commandProperty().set("echo hello");
    }

    String error(Field field) {
        return vm.errorProperty(field).get();
    }

    @Test
    void aFreshFormShowsNoErrorsButIsNotValid() {
        assertThat(vm.validProperty().get()).isFalse();
        for (Field f : Field.values()) {
            assertThat(error(f)).as(f.name()).isEmpty();
        }
    }

    @Test
    void submittingAnIncompleteFormShowsEveryProblemAndSendsNothing() {
        vm.submit();

        assertThat(error(Field.NAME)).startsWith("Required");
        assertThat(error(Field.COMMAND)).startsWith("Required");
        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).isEqualTo("Fix the fields marked in red, then submit again.");
        assertThat(cluster.calls()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "PRIORITY|0|Must be 1 to 9", "PRIORITY|10|Must be 1 to 9", "PRIORITY|x|whole number from 1 to 9",
            "PRIORITY|1|", "PRIORITY|9|",
            "MAX_ATTEMPTS|0|Must be 1 to 100", "MAX_ATTEMPTS|101|Must be 1 to 100", "MAX_ATTEMPTS|100|",
            "TIMEOUT|0|Must be 1 to 86400", "TIMEOUT|86401|Must be 1 to 86400", "TIMEOUT|86400|",
            "TIMEZONE|Mars/Olympus|Unknown time zone", "TIMEZONE|America/New_York|"})
    void rangesMirrorTheServer(Field field, String value, String problem) {
        fillShellJob();
        switch (field) {
            case PRIORITY -> vm.priorityProperty().set(value);
            case MAX_ATTEMPTS -> vm.maxAttemptsProperty().set(value);
            case TIMEOUT -> vm.timeoutSecondsProperty().set(value);
            case TIMEZONE -> vm.timezoneProperty().set(value);
            default -> throw new IllegalArgumentException(field.name());
        }

        if (problem == null) {
            assertThat(error(field)).isEmpty();
            assertThat(vm.validProperty().get()).isTrue();
        } else {
            assertThat(error(field)).contains(problem);
            assertThat(vm.validProperty().get()).isFalse();
        }
    }

    @Test
    void aNameLongerThan200CharactersIsRefused() {
        vm.nameProperty().set("n".repeat(201));

        assertThat(error(Field.NAME)).isEqualTo("At most 200 characters (this has 201).");
    }

    @Test
    void cronIsCheckedByTheServerAsItIsTypedAndItsFireTimesShowTheirDaylightSavingNotes() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.timezoneProperty().set("America/New_York");

        cluster.failNext("previewSchedule", new ForgeFlowApiException(422, "cron_expr '*/15 * *' has 3 fields: use 5",
                "cron_expr"));
        vm.cronExprProperty().set("*/15 * *");
        assertThat(error(Field.CRON)).isEqualTo("cron_expr '*/15 * *' has 3 fields: use 5");
        assertThat(vm.cronPreview()).isEmpty();
        assertThat(vm.validProperty().get()).isFalse();

        cluster.answerPreview((cron, zone) -> List.of(
                new ScheduledFire(Instant.parse("2026-03-08T07:00:00Z"), OffsetDateTime.parse("2026-03-08T03:00:00-04:00"),
                        "02:30 does not exist (DST gap): fired at the first valid instant"),
                new ScheduledFire(Instant.parse("2026-03-09T06:30:00Z"), OffsetDateTime.parse("2026-03-09T02:30:00-04:00"),
                        null)));
        vm.cronExprProperty().set("30 2 * * *");
        assertThat(error(Field.CRON)).isEmpty();
        assertThat(vm.validProperty().get()).isTrue();
        assertThat(vm.cronStatusProperty().get()).isEqualTo("Valid. Next 2 fire times in America/New_York:");
        assertThat(vm.cronPreview()).containsExactly(
                "2026-03-08 03:00:00 EDT   (2026-03-08 07:00:00Z)   02:30 does not exist (DST gap): fired at the first valid instant",
                "2026-03-09 02:30:00 EDT   (2026-03-09 06:30:00Z)");

        vm.priorityProperty().set("2");
        assertThat(cluster.calls()).as("another field does not ask again")
                .containsExactly("previewSchedule */15 * * America/New_York 5", "previewSchedule 30 2 * * * America/New_York 5");
    }

    @Test
    void anEmptyCronIsRequiredAndAnUnreachableServerLeavesTheCheckToTheSubmission() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("");
        vm.submit();
        assertThat(error(Field.CRON)).startsWith("Required: a cron expression");
        assertThat(cluster.calls()).doesNotContain("submit hello");

        cluster.failNext("previewSchedule", new io.forgeflow.client.ForgeFlowUnavailableException("http://127.0.0.1:1",
                new java.io.IOException("connection refused")));
        vm.cronExprProperty().set("0 3 * * *");
        assertThat(error(Field.CRON)).isEmpty();
        assertThat(vm.cronStatusProperty().get()).startsWith("No preview: ").endsWith("The server checks the expression on submit.");
        assertThat(vm.validProperty().get()).isTrue();
    }

    @Test
    void theRequestCarriesEveryField() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@hourly");
        vm.timezoneProperty().set("Europe/Berlin");
        vm.priorityProperty().set("2");
        vm.maxAttemptsProperty().set("7");
        vm.timeoutSecondsProperty().set("60");
        vm.catchUpProperty().set("once");
        vm.idempotencyKeyProperty().set("deploy-42");

        assertThat(vm.validate()).isTrue();
        assertThat(vm.request()).isEqualTo(new JobRequest("hello", "shell", Map.of("command", "echo hello"), "@hourly",
                null, "Europe/Berlin", 2, 7, 60, "once", "deploy-42"));
    }

    @Test
    void anHttpJobNeedsAUrlAndValidJson() {
        vm.nameProperty().set("hook");
        vm.executorProperty().set("http");
        vm.bodyProperty().set("{\"a\": ");
        vm.headersProperty().set("[1]");
        vm.submit();

        assertThat(error(Field.URL)).startsWith("Required");
        assertThat(error(Field.BODY)).startsWith("Not valid JSON");
        assertThat(error(Field.HEADERS)).startsWith("Write a JSON object");

        vm.urlProperty().set("https://example.test/hook");
        vm.bodyProperty().set("{\"a\": 1}");
        vm.headersProperty().set("{\"X-Token\": \"t\"}");
        vm.methodProperty().set("PUT");

        assertThat(vm.validate()).isTrue();
        assertThat(vm.request().payload()).isEqualTo(Map.of("url", "https://example.test/hook", "method", "PUT",
                "headers", Map.of("X-Token", "t"), "body", Map.of("a", 1)));
    }

    @Test
    void aOneOffTimeIsReadInTheJobsZone() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.ONCE);
        vm.timezoneProperty().set("Asia/Tokyo");
        vm.runAtProperty().set("tomorrow");
        assertThat(error(Field.RUN_AT)).startsWith("Write the time as");

        vm.runAtProperty().set("2026-07-02 09:00");

        assertThat(vm.validate()).isTrue();
        assertThat(vm.request().runAt()).isEqualTo(Instant.parse("2026-07-02T00:00:00Z"));
        assertThat(vm.request().cronExpr()).isNull();
    }

    @Test
    void aCreatedJobIsReportedAndHandedOn() {
        fillShellJob();

        vm.submit();

        assertThat(cluster.calls()).containsExactly("submit hello");
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get()).startsWith("Created job hello (job_1)");
        assertThat(vm.submittedProperty().get().name()).isEqualTo("hello");
        assertThat(accepted).extracting(Job::id).containsExactly("job_1");
    }

    @Test
    void aReplayedSubmissionSaysNoSecondJobWasCreated() {
        fillShellJob();
        cluster.answerSubmit(() -> new SubmitResult(Fixtures.job("job_7", "hello", Job.ACTIVE), false));

        vm.submit();

        assertThat(vm.messageProperty().get()).isEqualTo("Already submitted: the idempotency key matches job hello "
                + "(job_7); no second job was created.");
    }

    @Test
    void theServersValidationMessageIsShownOnItsField() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("0 0 12 ? * FRIL");
        cluster.failNext("submit", new ForgeFlowApiException(422, "cron_expr '0 0 12 ? * FRIL' is not valid",
                "cron_expr"));

        vm.submit();

        assertThat(error(Field.CRON)).isEqualTo("cron_expr '0 0 12 ? * FRIL' is not valid");
        assertThat(vm.messageProperty().get()).isEqualTo("The server rejected the job: cron_expr '0 0 12 ? * FRIL' "
                + "is not valid");
        assertThat(vm.failedProperty().get()).isTrue();

        vm.cronExprProperty().set("0 0 12 * * FRI");

        assertThat(error(Field.CRON)).as("editing the field clears the server's message").isEmpty();
    }

    @Test
    void payloadErrorsLandOnTheExecutorsField() {
        vm.executorProperty().set("http");
        assertThat(vm.fieldOf("payload.url")).isEqualTo(Field.URL);
        assertThat(vm.fieldOf("payload.body")).isEqualTo(Field.BODY);
        vm.executorProperty().set("shell");
        assertThat(vm.fieldOf("payload.command")).isEqualTo(Field.COMMAND);
        assertThat(vm.fieldOf("max_attempts")).isEqualTo(Field.MAX_ATTEMPTS);
    }

    @Test
    void resetClearsTheFormForAnotherJob() {
        fillShellJob();
        vm.submit();

        vm.reset();

        assertThat(vm.nameProperty().get()).isEmpty();
        assertThat(vm.submittedProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEmpty();
        assertThat(error(Field.NAME)).isEmpty();
    }

    @Test
    void aRecurringJobCarriesItsScheduleControls() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@hourly");
        vm.startAtProperty().set("2026-07-01T02:00:00+02:00");
        vm.endAtProperty().set("2026-12-31T00:00:00Z");
        vm.maxRunsProperty().set("100");
        vm.jitterSecondsProperty().set("30");
        vm.pauseAfterFailuresProperty().set("3");

        assertThat(vm.validate()).isTrue();
        JobRequest request = vm.request();
        assertThat(request.startAt()).isEqualTo(Instant.parse("2026-07-01T00:00:00Z"));
        assertThat(request.endAt()).isEqualTo(Instant.parse("2026-12-31T00:00:00Z"));
        assertThat(request.maxRuns()).isEqualTo(100);
        assertThat(request.jitterSeconds()).isEqualTo(30);
        assertThat(request.pauseAfterFailures()).isEqualTo(3);
    }

    @Test
    void emptyScheduleControlsAreNotSent() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@hourly");

        assertThat(vm.validate()).isTrue();
        JobRequest request = vm.request();
        assertThat(java.util.Arrays.asList(request.startAt(), request.endAt(), request.maxRuns(),
                request.jitterSeconds(), request.pauseAfterFailures())).containsOnlyNulls();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "MAX_RUNS|0|Must be 1 to 1000000", "MAX_RUNS|1000001|Must be 1 to 1000000", "MAX_RUNS|x|whole number",
            "MAX_RUNS|1000000|",
            "JITTER|-1|Must be 0 to 86400", "JITTER|86401|Must be 0 to 86400", "JITTER|0|", "JITTER|86400|",
            "PAUSE_AFTER_FAILURES|0|Must be 1 to 1000", "PAUSE_AFTER_FAILURES|1001|Must be 1 to 1000",
            "PAUSE_AFTER_FAILURES|1|",
            "START_AT|2026-07-01 09:30|Write an RFC 3339 time", "START_AT|2026-07-01T09:30:00Z|",
            "END_AT|tomorrow|Write an RFC 3339 time", "END_AT|2026-06-30T23:59:59Z|Must be later than the start",
            "END_AT|2026-07-01T00:00:01Z|"})
    void scheduleControlsAreCheckedAsTheServerChecksThem(Field field, String value, String problem) {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@hourly");
        if (field == Field.END_AT) {
            vm.startAtProperty().set("2026-07-01T00:00:00Z");
        }
        switch (field) {
            case MAX_RUNS -> vm.maxRunsProperty().set(value);
            case JITTER -> vm.jitterSecondsProperty().set(value);
            case PAUSE_AFTER_FAILURES -> vm.pauseAfterFailuresProperty().set(value);
            case START_AT -> vm.startAtProperty().set(value);
            case END_AT -> vm.endAtProperty().set(value);
            default -> throw new IllegalArgumentException(field.name());
        }

        if (problem == null) {
            assertThat(error(field)).isEmpty();
            assertThat(vm.validProperty().get()).isTrue();
        } else {
            assertThat(error(field)).contains(problem);
            assertThat(vm.validProperty().get()).isFalse();
        }
    }

    @Test
    void aOneOffJobNeitherChecksNorSendsTheScheduleControls() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.maxRunsProperty().set("0");
        vm.scheduleModeProperty().set(ScheduleMode.NOW);

        assertThat(vm.validate()).isTrue();
        assertThat(error(Field.MAX_RUNS)).isEmpty();
        assertThat(vm.request().maxRuns()).isNull();
    }

    @Test
    void theServers422OnAScheduleControlIsShownNextToIt() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("0 3 * * *");
        vm.endAtProperty().set("2026-07-01T01:00:00Z");
        cluster.failNext("submit", new ForgeFlowApiException(422,
                "end_at: the expression never fires between start_at and end_at", "end_at"));

        vm.submit();

        assertThat(error(Field.END_AT)).isEqualTo("end_at: the expression never fires between start_at and end_at");
        assertThat(vm.failedProperty().get()).isTrue();
    }

    /** Issue 45: the form sets a new job's notify; the server's 422 on notify.* is shown beside it. */
    @Test
    void aNewJobCarriesItsNotifyAndTheServersRefusalIsShownBesideIt() {
        fillShellJob();
        assertThat(vm.request().notices()).as("an empty URL: none (the cluster's default applies)").isNull();
        vm.notifyUrlProperty().set("https://hooks.example.com/ff");
        vm.notifyPausedProperty().set(false);

        assertThat(vm.request().notices()).isEqualTo(new io.forgeflow.client.Notify("https://hooks.example.com/ff",
                List.of("dead", "recovered")));

        vm.notifyDeadProperty().set(false);
        vm.notifyRecoveredProperty().set(false);
        assertThat(error(Field.NOTIFY_ON)).contains("at least one event");
        assertThat(vm.validProperty().get()).isFalse();
        vm.notifyDeadProperty().set(true);
        vm.notifyUrlProperty().set("ftp://hooks.example.com/ff");
        assertThat(error(Field.NOTIFY_URL)).contains("http or https");
        vm.notifyUrlProperty().set("http://10.0.0.5/hook");
        cluster.failNext("submit", new ForgeFlowApiException(422,
                "notify.url targets a private address (10.0.0.5)", "notify.url"));

        vm.submit();

        assertThat(error(Field.NOTIFY_URL)).isEqualTo("notify.url targets a private address (10.0.0.5)");
        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.fieldOf("notify.on")).isEqualTo(Field.NOTIFY_ON);
        vm.reset();
        assertThat(vm.notifyUrlProperty().get()).isEmpty();
        assertThat(vm.notifyPausedProperty().get()).as("reset: every event ticked again").isTrue();
    }

    @org.junit.jupiter.api.Nested
    class EditingNotify {
        final Job noticed = Fixtures.noticedJob("job_1", "nightly", "https://hooks.example.com/a", "dead");

        {
            cluster.withJob(noticed);
            vm.edit(noticed);
        }

        @Test
        void theFormShowsTheJobsNotify() {
            assertThat(vm.notifyUrlProperty().get()).isEqualTo("https://hooks.example.com/a");
            assertThat(vm.notifyDeadProperty().get()).isTrue();
            assertThat(vm.notifyPausedProperty().get()).isFalse();
            assertThat(vm.notifyRecoveredProperty().get()).isFalse();
            vm.submit();
            assertThat(cluster.calls()).as("unchanged: nothing sent").noneMatch(c -> c.startsWith("update"));
        }

        @Test
        void aChangedNotifyIsSentWhole() {
            vm.notifyUrlProperty().set("https://hooks.example.com/b");
            vm.notifyRecoveredProperty().set(true);

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_1 {notify={url=https://hooks.example.com/b, "
                    + "on=[dead, recovered]}} follow");
            assertThat(cluster.jobById("job_1").notices()).isEqualTo(new io.forgeflow.client.Notify(
                    "https://hooks.example.com/b", List.of("dead", "recovered")));
        }

        @Test
        void anEmptiedUrlRemovesTheNotify() {
            vm.notifyUrlProperty().set("");

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_1 {notify=null} follow");
            assertThat(cluster.jobById("job_1").notices()).isNull();
        }

        @Test
        void theServersRefusalOfTheEventsIsShownBesideThem() {
            vm.notifyPausedProperty().set(true);
            cluster.failNext("update", new ForgeFlowApiException(422, "notify.on: paused is not sent here",
                    "notify.on"));

            vm.submit();

            assertThat(error(Field.NOTIFY_ON)).isEqualTo("notify.on: paused is not sent here");
            vm.notifyPausedProperty().set(false);
            assertThat(error(Field.NOTIFY_ON)).isEmpty();
        }
    }

    @org.junit.jupiter.api.Nested
    class EditingScheduleControls {
        final Job steered = Fixtures.steeredJob("job_1", "nightly");

        {
            cluster.withJob(steered);
            vm.edit(steered);
        }

        @Test
        void theFormShowsTheControlsAsTheServerHasThem() {
            assertThat(vm.startAtProperty().get()).isEqualTo("2026-07-01T00:00:00Z");
            assertThat(vm.endAtProperty().get()).isEqualTo("2026-12-31T00:00:00Z");
            assertThat(vm.maxRunsProperty().get()).isEqualTo("100");
            assertThat(vm.jitterSecondsProperty().get()).isEqualTo("30");
            assertThat(vm.pauseAfterFailuresProperty().get()).isEqualTo("3");
            assertThat(vm.validProperty().get()).isTrue();
        }

        @Test
        void aChangedControlIsSentAndAnEmptiedOneIsRemoved() {
            vm.endAtProperty().set("");
            vm.maxRunsProperty().set("");
            vm.jitterSecondsProperty().set("45");
            vm.pauseAfterFailuresProperty().set("");

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_1 {end_at=null, max_runs=null, jitter_seconds=45, "
                    + "pause_after_failures=null} follow");
            Job saved = cluster.jobById("job_1");
            assertThat(saved.endAt()).isNull();
            assertThat(saved.maxRuns()).isNull();
            assertThat(saved.jitterSeconds()).isEqualTo(45);
            assertThat(saved.startAt()).as("not sent, so kept").isEqualTo(steered.startAt());
            assertThat(vm.messageProperty().get()).startsWith("Saved nightly: changed end_at, max_runs, "
                    + "jitter_seconds, pause_after_failures");
        }

        @Test
        void aStartGivenInAnotherOffsetThatIsTheSameInstantIsNoChange() {
            vm.startAtProperty().set("2026-07-01T02:00:00+02:00");

            vm.submit();

            assertThat(cluster.calls()).noneMatch(c -> c.startsWith("update"));
        }

        @Test
        void theServersRefusalOfAControlIsShownOnIt() {
            vm.maxRunsProperty().set("5");
            cluster.failNext("update", new ForgeFlowApiException(422, "max_runs: 12 runs were fired already",
                    "max_runs"));

            vm.submit();

            assertThat(error(Field.MAX_RUNS)).isEqualTo("max_runs: 12 runs were fired already");
            vm.maxRunsProperty().set("50");
            assertThat(error(Field.MAX_RUNS)).isEmpty();
        }
    }

    @org.junit.jupiter.api.Nested
    class Editing {
        final Job nightly = Fixtures.fullJob("job_1", "nightly");
        final List<Job> saved = new ArrayList<>();

        {
            cluster.withJob(nightly);
            vm.setOnSaved(saved::add);
            vm.edit(nightly);
        }

        @Test
        void theFormShowsTheJobAsTheServerHasItWithExecutorAndIdempotencyKeyFixed() {
            assertThat(vm.modeProperty().get()).isEqualTo(JobFormViewModel.Mode.EDIT);
            assertThat(vm.titleProperty().get()).isEqualTo("Edit job nightly (job_1)");
            assertThat(vm.actionLabelProperty().get()).isEqualTo("Save changes");
            assertThat(vm.nameProperty().get()).isEqualTo("nightly");
            assertThat(vm.executorProperty().get()).isEqualTo("shell");
            assertThat(vm.commandProperty().get()).isEqualTo("echo nightly");
            assertThat(vm.scheduleModeProperty().get()).isEqualTo(ScheduleMode.CRON);
            assertThat(vm.cronExprProperty().get()).isEqualTo("0 3 * * *");
            assertThat(vm.timezoneProperty().get()).isEqualTo("Europe/Berlin");
            assertThat(vm.priorityProperty().get()).isEqualTo("5");
            assertThat(vm.maxAttemptsProperty().get()).isEqualTo("3");
            assertThat(vm.timeoutSecondsProperty().get()).isEqualTo("300");
            assertThat(vm.catchUpProperty().get()).isEqualTo("skip");
            assertThat(vm.idempotencyKeyProperty().get()).isEqualTo("deploy-42");
            assertThat(vm.queueProperty().get()).isEqualTo("reports");
            assertThat(vm.concurrencyKeyProperty().get()).isEqualTo("db");
            assertThat(vm.maxConcurrentProperty().get()).isEqualTo("2");
            assertThat(vm.overlapProperty().get()).isEqualTo("skip");
            assertThat(vm.labelsProperty().get()).isEqualTo("env:prod, team:ops");
            assertThat(vm.validProperty().get()).isTrue();
            for (Field f : Field.values()) {
                assertThat(error(f)).as(f.name()).isEmpty();
            }
        }

        @Test
        void savingSendsOnlyTheChangedFieldsAndHandsTheChangedJobOn() {
            vm.priorityProperty().set("2");
            vm.labelsProperty().set("team:ops, env:prod, tier:gold");

            vm.submit();

            assertThat(cluster.calls()).filteredOn(c -> c.startsWith("update")).containsExactly(
                    "update job_1 {priority=2, labels={env=prod, team=ops, tier=gold}} follow");
            assertThat(cluster.jobById("job_1").payload()).as("payload not sent, so kept")
                    .isEqualTo(nightly.payload());
            assertThat(vm.failedProperty().get()).isFalse();
            assertThat(vm.messageProperty().get()).isEqualTo("Saved nightly: changed priority, labels; pending runs "
                    + "follow the change.");
            assertThat(saved).extracting(Job::priority).containsExactly(2);
            assertThat(vm.editingProperty().get().labels()).containsEntry("tier", "gold");
            assertThat(accepted).as("an edit is not a submission").isEmpty();
        }

        @Test
        void keepPendingSendsPendingKeep() {
            vm.timeoutSecondsProperty().set("60");
            vm.keepPendingProperty().set(true);

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_1 {timeout_seconds=60} keep");
            assertThat(vm.messageProperty().get()).endsWith("pending runs kept as they were.");
        }

        @Test
        void anUnchangedFormSendsNothing() {
            vm.nameProperty().set("nightly ");

            vm.submit();

            assertThat(cluster.calls()).noneMatch(c -> c.startsWith("update"));
            assertThat(vm.messageProperty().get()).isEqualTo("Nothing to save: every field is as the server has it.");
        }

        @Test
        void aNewCommandReplacesTheCommandAndKeepsThePayloadKeysTheFormDoesNotShow() {
            vm.commandProperty().set("echo changed");

            vm.submit();

            assertThat(cluster.jobById("job_1").payload()).isEqualTo(Map.of("command", "echo changed",
                    "permanent_exit_codes", List.of(2)));
            assertThat(cluster.calls().get(cluster.calls().size() - 1)).startsWith("update job_1 {payload=");
        }

        @Test
        void emptiedOptionalFieldsAreSentAsNullsSoTheServerDefaultsApply() {
            vm.concurrencyKeyProperty().set("");
            vm.maxConcurrentProperty().set("");
            vm.queueProperty().set("");
            vm.labelsProperty().set("");

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo(
                    "update job_1 {queue=default, concurrency_key=null, max_concurrent=null, labels={}} follow");
        }

        @Test
        void theServersRefusalIsShownOnTheFieldItNames() {
            vm.labelsProperty().set("team:ops, owner:" + "x".repeat(10));
            cluster.failNext("update", new ForgeFlowApiException(422, "labels may hold at most 20 entries", "labels"));

            vm.submit();

            assertThat(error(Field.LABELS)).isEqualTo("labels may hold at most 20 entries");
            assertThat(vm.failedProperty().get()).isTrue();
            assertThat(vm.messageProperty().get()).isEqualTo("The server refused the change: labels may hold at most "
                    + "20 entries");
            assertThat(saved).isEmpty();

            vm.labelsProperty().set("team:ops");
            assertThat(error(Field.LABELS)).as("editing the field clears the server's message").isEmpty();
        }

        @Test
        void aJobCancelledMeanwhileIsAConflictAndCanBeReloaded() {
            cluster.withJob(Fixtures.withStatus(nightly, Job.CANCELLED));
            vm.priorityProperty().set("1");

            vm.submit();

            assertThat(vm.canReloadProperty().get()).isTrue();
            assertThat(vm.messageProperty().get()).isEqualTo("The server refused the change: job job_1 is cancelled "
                    + "and cannot be changed (HTTP 409). Reload the job to see it as the server has it now.");

            vm.reloadEdited();

            assertThat(vm.canReloadProperty().get()).isFalse();
            assertThat(vm.priorityProperty().get()).as("the server's value").isEqualTo("5");
            assertThat(vm.messageProperty().get()).isEqualTo("Reloaded nightly as the server has it (status "
                    + "cancelled).");
        }

        @Test
        void badInputIsExplainedLocallyAndNothingIsSent() {
            vm.maxConcurrentProperty().set("0");
            vm.labelsProperty().set("team ops");
            vm.queueProperty().set("-bad queue");
            vm.scheduleModeProperty().set(ScheduleMode.NOW);

            vm.submit();

            assertThat(error(Field.MAX_CONCURRENT)).startsWith("Must be 1 to 10000");
            assertThat(error(Field.LABELS)).startsWith("'team ops' has no ':'");
            assertThat(error(Field.QUEUE)).startsWith("Use 1 to 100 letters");
            assertThat(error(Field.CRON)).startsWith("A recurring job stays recurring");
            assertThat(vm.messageProperty().get()).isEqualTo("Fix the fields marked in red, then save again.");
            assertThat(cluster.calls()).noneMatch(c -> c.startsWith("update"));
        }

        @Test
        void aConcurrencyKeyNeedsAMaximum() {
            vm.maxConcurrentProperty().set("");

            assertThat(error(Field.MAX_CONCURRENT)).startsWith("Required with a concurrency key");
            assertThat(vm.validProperty().get()).isFalse();
        }

        @Test
        void aOneOffJobsTimeMovesAndAnHttpPayloadKeepsItsImplicitMethod() {
            Job hook = new Job("job_2", "hook", "http", Map.of("url", "https://example.test/a",
                    "retry_on_status", List.of(503)), null, Instant.parse("2026-07-02T08:00:00Z"), "UTC", 5, 3, 300,
                    "skip", null, Job.ACTIVE, Instant.parse("2026-07-02T08:00:00Z"), Fixtures.T0, Fixtures.T0);
            cluster.withJob(hook);
            vm.edit(hook);
            assertThat(vm.scheduleModeProperty().get()).isEqualTo(ScheduleMode.ONCE);
            assertThat(vm.runAtProperty().get()).isEqualTo("2026-07-02 08:00:00");
            assertThat(vm.methodProperty().get()).isEqualTo("POST");

            vm.runAtProperty().set("2026-07-03 08:00");
            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_2 {run_at=2026-07-03T08:00:00Z} follow");

            vm.urlProperty().set("https://example.test/b");
            vm.submit();

            assertThat(cluster.jobById("job_2").payload()).isEqualTo(Map.of("url", "https://example.test/b",
                    "retry_on_status", List.of(503)));
        }

        @Test
        void aWebhookEditedAsReadSendsItsMaskedSecretBackAsTheServerShowedIt() {
            // the server shows secret headers as "***" and keeps the stored value when the mask comes back (issue 39)
            Job hook = new Job("job_3", "hook", "http", Map.of("url", "https://example.test/a", "method", "POST",
                    "headers", Map.of("Authorization", "***")), null, Instant.parse("2026-07-02T08:00:00Z"), "UTC", 5,
                    3, 300, "skip", null, Job.ACTIVE, Instant.parse("2026-07-02T08:00:00Z"), Fixtures.T0, Fixtures.T0);
            cluster.withJob(hook);
            vm.edit(hook);

            vm.urlProperty().set("https://example.test/b");
            vm.submit();

            assertThat(cluster.jobById("job_3").payload()).isEqualTo(Map.of("url", "https://example.test/b",
                    "method", "POST", "headers", Map.of("Authorization", "***")));
        }

        @Test
        void resetLeavesEditModeForANewJob() {
            vm.reset();

            assertThat(vm.modeProperty().get()).isEqualTo(JobFormViewModel.Mode.SUBMIT);
            assertThat(vm.editingProperty().get()).isNull();
            assertThat(vm.titleProperty().get()).isEqualTo("Submit a job");
            assertThat(vm.queueProperty().get()).isEqualTo("default");
            assertThat(vm.nameProperty().get()).isEmpty();
        }
    }

    @Test
    void aNewJobCarriesItsQueueConcurrencyOverlapAndLabels() {
        fillShellJob();
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@hourly");
        vm.queueProperty().set("reports");
        vm.concurrencyKeyProperty().set("db");
        vm.maxConcurrentProperty().set("3");
        vm.overlapProperty().set("queue_one");
        vm.labelsProperty().set("team:ops");

        assertThat(vm.validate()).isTrue();
        JobRequest request = vm.request();
        assertThat(request.queue()).isEqualTo("reports");
        assertThat(request.concurrencyKey()).isEqualTo("db");
        assertThat(request.maxConcurrent()).isEqualTo(3);
        assertThat(request.overlap()).isEqualTo("queue_one");
        assertThat(request.labels()).isEqualTo(Map.of("team", "ops"));
    }

    // ---------------------------------------------------------------- parents (depends_on)

    @Test
    void aJobWithParentsIsSubmittedWithThemAndThePolicy() {
        cluster.withJob(Fixtures.job("job_a", "extract", Job.COMPLETED))
                .withJob(Fixtures.job("job_b", "load", Job.ACTIVE));
        fillShellJob();
        vm.parentsProperty().set(" job_a,  job_b ");
        vm.onParentFailureProperty().set("wait");

        vm.submit();

        assertThat(cluster.calls()).contains("submitWithParents hello [job_a, job_b] wait");
        assertThat(cluster.submittedParents()).containsExactly(new io.forgeflow.admin.cluster.Parents(
                List.of("job_a", "job_b"), "wait"));
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get()).endsWith("; it waits for 2 parents (on parent failure: wait).");
    }

    @Test
    void withoutParentsNoPolicyIsSentAndThePlainSubmitIsUsed() {
        fillShellJob();
        vm.onParentFailureProperty().set("run");

        vm.submit();

        assertThat(cluster.calls()).containsExactly("submit hello");
        assertThat(cluster.submittedParents()).isEmpty();
    }

    @Test
    void theServers422OnDependsOnIsShownNextToTheParentsField() {
        fillShellJob();
        vm.parentsProperty().set("job_missing");

        vm.submit();

        assertThat(error(Field.PARENTS)).isEqualTo("depends_on: no job job_missing");
        assertThat(vm.messageProperty().get()).isEqualTo("The server rejected the job: depends_on: no job job_missing");
        assertThat(vm.fieldOf("depends_on")).isEqualTo(Field.PARENTS);
        assertThat(vm.fieldOf("depends_on[1]")).isEqualTo(Field.PARENTS);
        assertThat(vm.fieldOf("on_parent_failure")).isEqualTo(Field.ON_PARENT_FAILURE);

        vm.parentsProperty().set("job_other");
        assertThat(error(Field.PARENTS)).as("editing the field clears the server's message").isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "job_a, job_a | Job job_a is named twice: each parent once.",
            "job_a, job/b | 'job/b' is not a job id: copy ids from the Jobs list, separated by commas."})
    void badParentIdsAreExplainedAndNothingIsSent(String text, String problem) {
        fillShellJob();
        vm.parentsProperty().set(text);

        vm.submit();

        assertThat(error(Field.PARENTS)).isEqualTo(problem);
        assertThat(cluster.calls()).isEmpty();
    }

    @Test
    void moreThanAHundredParentsAndARecurringJobWithParentsAreRefused() {
        fillShellJob();
        vm.parentsProperty().set(String.join(",", java.util.stream.IntStream.rangeClosed(1, 101)
                .mapToObj(i -> "job_" + i).toList()));
        vm.submit();
        assertThat(error(Field.PARENTS)).isEqualTo("At most 100 parents (this has 101).");

        vm.parentsProperty().set("job_a");
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@daily");
        assertThat(error(Field.PARENTS)).startsWith("Only a one-off job can have parents");
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("submit"));
    }

    @Test
    void resetEmptiesTheParents() {
        vm.parentsProperty().set("job_a");
        vm.onParentFailureProperty().set("run");

        vm.reset();

        assertThat(vm.parentsProperty().get()).isEmpty();
        assertThat(vm.onParentFailureProperty().get()).isEqualTo("cancel");
    }
}
