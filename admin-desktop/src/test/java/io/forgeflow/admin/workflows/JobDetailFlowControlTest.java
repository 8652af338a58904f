package io.forgeflow.admin.workflows;

import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.testing.Fixtures;
import io.forgeflow.admin.testing.RecordingNavigator;
import io.forgeflow.client.Debounce;
import io.forgeflow.client.Job;
import io.forgeflow.client.Throttle;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The job detail shows the job's debounce and throttle (README "Flow control"). */
class JobDetailFlowControlTest {
    static Job withFlow(Job j, Debounce debounce, Throttle throttle) {
        return new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(), j.priority(),
                j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(), j.nextRunAt(),
                j.createdAt(), j.updatedAt(), j.queue(), j.concurrencyKey(), j.maxConcurrent(), j.overlap(),
                j.waitingFor(), j.retry(), j.labels(), j.traceId(), j.dependsOn(), j.onParentFailure(), j.batchId(),
                j.parents(), j.children(), j.startAt(), j.endAt(), j.maxRuns(), j.jitterSeconds(),
                j.pauseAfterFailures(), j.firedRuns(), j.pausedNote(), j.pausedBy(), j.sequenceKey(), j.onDead(),
                j.notices(), debounce, throttle);
    }

    final FakeClusterClient cluster = new FakeClusterClient()
            .withJob(withFlow(Fixtures.job("job_t", "sync", Job.ACTIVE),
                    new Debounce("user-42", 30, 300, Debounce.TRAILING), new Throttle("partner:7", 5, 2)))
            .withJob(withFlow(Fixtures.job("job_l", "lead", Job.ACTIVE),
                    new Debounce("user-43", 10, null, Debounce.LEADING), null))
            .withJob(Fixtures.job("job_p", "plain", Job.ACTIVE));
    final Async async = Async.sameThread();
    final JobDetailViewModel vm = new JobDetailViewModel(cluster, async, new JobNames(cluster, async),
            new RecordingNavigator());

    @Test
    void showsTheDebounceAndThrottleOrNone() {
        vm.open("job_t");
        assertThat(vm.debounceProperty().get())
                .isEqualTo("user-42: trailing, 30s after the last submission, at most 300s after the first");
        assertThat(vm.throttleProperty().get()).isEqualTo("partner:7: at most 5 start(s) per 2s");

        vm.open("job_l");
        assertThat(vm.debounceProperty().get()).isEqualTo("user-43: leading, the first runs at once, others within "
                + "10s join it");
        assertThat(vm.throttleProperty().get()).isEqualTo("none");

        vm.open("job_p");
        assertThat(vm.debounceProperty().get()).isEqualTo("none");

        vm.clear();
        assertThat(vm.debounceProperty().get()).isEmpty();
        assertThat(vm.throttleProperty().get()).isEmpty();
    }
}
