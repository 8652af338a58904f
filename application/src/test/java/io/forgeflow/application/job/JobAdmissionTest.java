package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.InMemoryWorkflows;
import io.forgeflow.application.workflow.SubmitBatch;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.Notify;
import io.forgeflow.domain.port.Workflows.BatchCreation;
import io.forgeflow.domain.workflow.BatchPlan;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One admission for every way a job comes in (issue 45): a batch's jobs and its on_complete get the cluster's default
 * notify exactly as a job submitted alone; a user's idempotency key may not start with {@code notice:} (the notices'
 * own jobs use those), alone or as a batch's key (a batch's jobs take no key); the system still may (NoticeDispatcherTest
 * dispatches through the node's ordinary use case).
 */
class JobAdmissionTest {
    final Scenario s = new Scenario();
    final Notify fallback = Notify.parse("https://hooks.example.com/all", "dead,paused");
    final JobAdmission admission = JobAdmission.of(s.executors).withNotifyDefault(fallback);
    final SubmitJob submit = new SubmitJob(s.store.jobs(), admission, s.cron, s.signal, s.clock, null, null);
    final SubmitBatch batches = new SubmitBatch(new InMemoryWorkflows(s.store), admission, s.signal, s.clock, n -> { });

    static void refusedOn(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ValidationException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).contains("notice:");
        });
    }

    Job job(String id) {
        return s.store.jobs().find(id).orElseThrow();
    }

    @Test
    void aBatchsJobsGetTheDefaultNotifyAsAJobAloneDoes() {
        Job alone = submit.submit(aDraft().build()).job();
        JobDraft own = aDraft().named("own").withNotify(new Notify("https://own.example.com/", List.of("recovered")))
                .build();
        BatchCreation batch = batches.submit(BatchPlan.validate("b", null, List.of(
                new BatchPlan.Entry("a", aDraft().named("plain").build(), null, null),
                new BatchPlan.Entry("b", own, null, null),
                new BatchPlan.Entry("c", aDraft().named("notice-like").inQueue(Notify.QUEUE).build(), null, null)),
                aDraft().named("then").build()), "h", null);

        assertThat(alone.spec().notices()).isEqualTo(fallback);
        assertThat(job(batch.jobIds().get(0)).spec().notices()).as("as alone").isEqualTo(fallback);
        assertThat(job(batch.jobIds().get(1)).spec().notices().url()).as("its own wins")
                .isEqualTo("https://own.example.com/");
        assertThat(job(batch.jobIds().get(2)).spec().notices()).as("the notices' queue: none").isNull();
        assertThat(job(batch.batch().onCompleteJobId()).spec().notices()).as("on_complete").isEqualTo(fallback);
    }

    @Test
    void aUsersIdempotencyKeyMayNotStartWithNotice() {
        refusedOn(() -> submit.submit(aDraft().withIdempotencyKey("notice:42").build()), "idempotency_key");
        refusedOn(() -> batches.submit(BatchPlan.validate("b", "notice:7", List.of(new BatchPlan.Entry(null,
                aDraft().build(), null, null)), null), "h1", null), "idempotency_key");
        assertThat(submit.submit(aDraft().withIdempotencyKey("notices:42").build()).created())
                .as("only the prefix notice: is kept").isTrue();
        assertThat(submit.submit(aDraft().withIdempotencyKey("my-notice:42").build()).created()).isTrue();
    }

    @Test
    void theSystemMayUseNoticeKeysAndGetsNoDefault() {
        Job notice = submit.forTheSystem().submit(aDraft().withIdempotencyKey("notice:1").build()).job();

        assertThat(notice.spec().idempotencyKey()).isEqualTo("notice:1");
        assertThat(notice.spec().notices()).isNull();
    }
}
