package io.forgeflow.application.notice;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.job.UpdateJob;
import io.forgeflow.application.testkit.InMemoryWorkflows;
import io.forgeflow.application.workflow.SubmitBatch;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobPatch;
import io.forgeflow.domain.job.Notify;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.workflow.BatchPlan;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A notify URL is checked as the http executor checks payload.url (its SSRF guard), at every entry point: a
 * submission, an update that gives notify, each job of a batch and its on_complete; the refusal names the field.
 */
class NoticeTargetsTest {
    /** An http executor whose guard refuses loopback, as the real one does with private targets refused. */
    static final RunExecutor GUARDED_HTTP = new RunExecutor() {
        @Override
        public String name() {
            return "http";
        }

        @Override
        public void validate(Map<String, Object> payload) {
            if (String.valueOf(payload.get("url")).contains("127.0.0.1")) {
                throw new ValidationException("payload.url", "payload.url targets a loopback address (127.0.0.1)");
            }
        }

        @Override
        public ExecutionResult execute(ExecutionContext context) {
            return ExecutionResult.succeeded("");
        }
    };

    final Scenario s = new Scenario();
    final ExecutorRegistry executors = new ExecutorRegistry(List.of(s.shell, GUARDED_HTTP), null);
    final Notify loopback = new Notify("http://127.0.0.1:9/hook", null);

    static void refusedOn(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ValidationException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).contains("notify.url targets a loopback address").doesNotContain("payload.url");
        });
    }

    @Test
    void aSubmissionIsRefusedOnNotifyUrl() {
        SubmitJob submit = new SubmitJob(s.store.jobs(), executors, s.cron, s.signal, s.clock);

        refusedOn(() -> submit.submit(aDraft().withNotify(loopback).build()), "notify.url");
        assertThat(submit.submit(aDraft().withNotify(new Notify("https://hooks.example.com/", null)).build())
                .created()).isTrue();
    }

    @Test
    void anUpdateGivingNotifyIsRefusedOnNotifyUrlAndOneThatDoesNotIsNotChecked() {
        Job job = new SubmitJob(s.store.jobs(), executors, s.cron, s.signal, s.clock).submit(aDraft().build()).job();
        UpdateJob update = new UpdateJob(s.store.jobs(), executors, s.cron, s.signal, s.clock);

        refusedOn(() -> update.update(job.id(), new JobPatch(JobDraft.oneOff(null, null, null).withNotify(loopback),
                Set.of("notify")), false), "notify.url");
        assertThat(update.update(job.id(), new JobPatch(JobDraft.oneOff(null, null, null).withNotify(
                new Notify("https://hooks.example.com/", null)), Set.of("notify")), false).spec().notices())
                .isNotNull();
    }

    @Test
    void aBatchIsRefusedOnItsJobsNotifyUrlAndItsOnCompletes() {
        SubmitBatch batches = new SubmitBatch(new InMemoryWorkflows(s.store),
                io.forgeflow.application.job.JobAdmission.of(executors), s.signal, s.clock, n -> { });
        JobDraft good = aDraft().build();
        JobDraft bad = aDraft().withNotify(loopback).build();

        refusedOn(() -> batches.submit(BatchPlan.validate("b", null, List.of(new BatchPlan.Entry(null, good, null,
                null), new BatchPlan.Entry(null, bad, null, null)), null), "h1", null), "jobs[1].notify.url");
        refusedOn(() -> batches.submit(BatchPlan.validate("b", null, List.of(new BatchPlan.Entry(null, good, null,
                null)), bad), "h2", null), "on_complete.notify.url");
    }
}
