package io.forgeflow.admin.jobs;

import io.forgeflow.admin.jobs.JobFormViewModel.Field;
import io.forgeflow.admin.jobs.JobFormViewModel.ScheduleMode;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.client.Debounce;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.SubmitResult;
import io.forgeflow.client.Throttle;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** The job form's debounce and throttle (README "Flow control"): set on a new job, the throttle changed on an edit. */
class JobFormFlowControlTest {
    final FakeClusterClient cluster = new FakeClusterClient();
    final Times times = new Times(ZoneId.of("UTC"), Clock.fixed(Fixtures.T0, ZoneOffset.UTC));
    final JobFormViewModel vm = new JobFormViewModel(cluster, Async.sameThread(), times, Navigator.NONE);
    final FlowControlForm flow = vm.flowControl();

    void fillShellJob() {
        vm.nameProperty().set("sync-profile");
        vm.commandProperty().set("./sync.sh");
    }

    String error(Field field) {
        return vm.errorProperty(field).get();
    }

    /** {@link Fixtures#fullJob} with a debounce and a throttle. */
    static Job withFlow(Job j, Debounce debounce, Throttle throttle) {
        return new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(), j.priority(),
                j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(), j.nextRunAt(),
                j.createdAt(), j.updatedAt(), j.queue(), j.concurrencyKey(), j.maxConcurrent(), j.overlap(),
                j.waitingFor(), j.retry(), j.labels(), j.traceId(), j.dependsOn(), j.onParentFailure(), j.batchId(),
                j.parents(), j.children(), j.startAt(), j.endAt(), j.maxRuns(), j.jitterSeconds(),
                j.pauseAfterFailures(), j.firedRuns(), j.pausedNote(), j.pausedBy(), j.sequenceKey(), j.onDead(),
                j.notices(), debounce, throttle);
    }

    @Test
    void aNewJobCarriesItsDebounceAndThrottle() {
        fillShellJob();
        flow.debounceKeyProperty().set(" user-42 ");
        flow.debouncePeriodProperty().set("30");
        flow.debounceMaxWaitProperty().set("300");
        flow.throttleKeyProperty().set("partner:7");
        flow.throttleCountProperty().set("5");
        flow.throttlePerProperty().set("2");

        assertThat(vm.validProperty().get()).isTrue();
        assertThat(vm.request().debounce()).as("trailing, the default, is left to the server")
                .isEqualTo(new Debounce("user-42", 30, 300, null));
        assertThat(vm.request().throttle()).isEqualTo(new Throttle("partner:7", 5, 2));

        flow.debounceEdgeProperty().set(Debounce.LEADING);
        flow.debounceMaxWaitProperty().set("");
        assertThat(vm.request().debounce()).isEqualTo(new Debounce("user-42", 30, null, "leading"));
    }

    @Test
    void emptyFlowControlIsNotSent() {
        fillShellJob();

        assertThat(vm.request().debounce()).isNull();
        assertThat(vm.request().throttle()).isNull();
        assertThat(error(Field.DEBOUNCE)).isEmpty();
        assertThat(error(Field.THROTTLE)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "'' | 30 | '' | trailing | Debounce key: required",
            "k | '' | '' | trailing | Debounce period: 1 to 86400",
            "k | 0 | '' | trailing | Debounce period: 1 to 86400",
            "k | 86401 | '' | trailing | Debounce period: 1 to 86400",
            "k | 30 | 10 | trailing | Debounce max wait: 30 (the period) to 604800",
            "k | 30 | 604801 | trailing | Debounce max wait",
            "k | 30 | 60 | leading | Max wait applies to a trailing debounce only",
            "k | 30 | 60 | trailing | ''"})
    void aDebounceIsCheckedAsTheServerChecksIt(String key, String period, String maxWait, String edge,
                                                String problem) {
        fillShellJob();
        flow.debounceKeyProperty().set(key);
        flow.debouncePeriodProperty().set(period);
        flow.debounceMaxWaitProperty().set(maxWait);
        flow.debounceEdgeProperty().set(edge);

        if (problem.isEmpty()) {
            assertThat(error(Field.DEBOUNCE)).isEmpty();
            assertThat(vm.validProperty().get()).isTrue();
        } else {
            assertThat(error(Field.DEBOUNCE)).startsWith(problem);
            assertThat(vm.validProperty().get()).isFalse();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "'' | 5 | 2 | Throttle key: required", "k | 0 | 2 | Throttle starts: 1 to 100000",
            "k | 100001 | 2 | Throttle starts", "k | x | 2 | Throttle starts", "k | 5 | '' | Throttle window",
            "k | 5 | 86401 | Throttle window", "k | 100000 | 86400 | ''"})
    void aThrottleIsCheckedAsTheServerChecksIt(String key, String count, String per, String problem) {
        fillShellJob();
        flow.throttleKeyProperty().set(key);
        flow.throttleCountProperty().set(count);
        flow.throttlePerProperty().set(per);

        assertThat(error(Field.THROTTLE)).satisfies(e -> {
            if (problem.isEmpty()) {
                assertThat(e).isEmpty();
            } else {
                assertThat(e).startsWith(problem);
            }
        });
    }

    @Test
    void aDebounceNeedsAJobThatRunsOnceNow() {
        fillShellJob();
        flow.debounceKeyProperty().set("user-42");
        flow.debouncePeriodProperty().set("30");
        vm.scheduleModeProperty().set(ScheduleMode.CRON);
        vm.cronExprProperty().set("@hourly");

        assertThat(error(Field.DEBOUNCE)).startsWith("A debounce applies to a job that runs once, now");
    }

    @Test
    void aJoinedSubmissionSaysWhichRunItJoined() {
        fillShellJob();
        flow.debounceKeyProperty().set("user-42");
        flow.debouncePeriodProperty().set("30");
        cluster.answerSubmit(() -> new SubmitResult(Fixtures.job("job_7", "sync-profile", Job.ACTIVE), false,
                "run_9"));

        vm.submit();

        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get()).isEqualTo("Debounced: joined run run_9 of job sync-profile (job_7); "
                + "no new job was created.");
    }

    @Test
    void theServers422OnAPartIsShownOnItsField() {
        fillShellJob();
        flow.throttleKeyProperty().set("partner:7");
        flow.throttleCountProperty().set("5");
        flow.throttlePerProperty().set("2");
        cluster.failNext("submit", new ForgeFlowApiException(422, "throttle.key must be 1 to 200 characters",
                "throttle.key"));

        vm.submit();

        assertThat(error(Field.THROTTLE)).isEqualTo("throttle.key must be 1 to 200 characters");
        assertThat(vm.fieldOf("debounce.period_seconds")).isEqualTo(Field.DEBOUNCE);
        flow.throttleKeyProperty().set("partner:8");
        assertThat(error(Field.THROTTLE)).as("editing the field clears the server's message").isEmpty();
    }

    @Test
    void resetEmptiesTheFlowControl() {
        fillShellJob();
        flow.debounceKeyProperty().set("user-42");
        flow.debounceEdgeProperty().set(Debounce.LEADING);
        flow.throttleKeyProperty().set("partner:7");

        vm.reset();

        assertThat(flow.debounceKeyProperty().get()).isEmpty();
        assertThat(flow.debounceEdgeProperty().get()).isEqualTo(Debounce.TRAILING);
        assertThat(flow.throttleKeyProperty().get()).isEmpty();
        assertThat(error(Field.DEBOUNCE)).isEmpty();
    }

    @Nested
    class Editing {
        final Job throttled = withFlow(Fixtures.fullJob("job_1", "nightly"), null, new Throttle("partner:7", 5, 2));

        {
            cluster.withJob(throttled);
            vm.edit(throttled);
        }

        @Test
        void theFormShowsTheThrottleAsTheServerHasIt() {
            assertThat(flow.throttleKeyProperty().get()).isEqualTo("partner:7");
            assertThat(flow.throttleCountProperty().get()).isEqualTo("5");
            assertThat(flow.throttlePerProperty().get()).isEqualTo("2");
            assertThat(vm.validProperty().get()).isTrue();
        }

        @Test
        void aChangedThrottleIsSentWhole() {
            flow.throttleCountProperty().set("9");
            flow.throttlePerProperty().set("60");

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_1 {throttle={key=partner:7, count=9, "
                    + "per_seconds=60}} follow");
        }

        @Test
        void anEmptiedKeyRemovesTheThrottle() {
            flow.throttleKeyProperty().set("");
            flow.throttleCountProperty().set("");
            flow.throttlePerProperty().set("");

            vm.submit();

            assertThat(cluster.calls()).last().isEqualTo("update job_1 {throttle=null} follow");
        }

        @Test
        void anUnchangedThrottleIsNotSentAndABadOneIsExplained() {
            flow.throttleCountProperty().set("0");
            vm.submit();
            assertThat(error(Field.THROTTLE)).startsWith("Throttle starts");
            assertThat(cluster.calls()).noneMatch(c -> c.startsWith("update"));

            flow.throttleCountProperty().set("5");
            vm.priorityProperty().set("2");
            vm.submit();
            assertThat(cluster.calls()).last().isEqualTo("update job_1 {priority=2} follow");
        }

        @Test
        void aDebounceIsShownButNeitherCheckedNorSent() {
            Job debounced = withFlow(Fixtures.job("job_2", "sync", Job.ACTIVE), new Debounce("user-42", 30, 300,
                    "trailing"), null);
            cluster.withJob(debounced);
            vm.edit(debounced);

            assertThat(flow.debounceKeyProperty().get()).isEqualTo("user-42");
            assertThat(flow.debouncePeriodProperty().get()).isEqualTo("30");
            assertThat(flow.debounceMaxWaitProperty().get()).isEqualTo("300");
            assertThat(vm.validProperty().get()).as("a recurring fixture with a debounce: not checked on an edit")
                    .isTrue();
            vm.nameProperty().set("sync-2");
            vm.submit();
            assertThat(cluster.calls()).last().isEqualTo("update job_2 {name=sync-2} follow");
        }
    }

    @Test
    void aJobWithoutFlowControlIsCreatedAsBefore() {
        fillShellJob();
        vm.submit();
        assertThat(cluster.calls()).containsExactly("submit sync-profile");
        assertThat(vm.messageProperty().get()).startsWith("Created job sync-profile");
    }
}
