package io.forgeflow.server;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.Batch;
import io.forgeflow.client.BatchRequest;
import io.forgeflow.client.BatchSubmitResult;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.LinkedJob;
import io.forgeflow.client.Run;
import io.forgeflow.client.RunFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The REST client's workflow methods (API.md "Workflows") against a real node on a real PostgreSQL: parents and
 * children, the {@code waiting} run status, batches and their progress, errors as the client maps them.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WorkflowClientIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("auth-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "workflow-worker"));

    static final String ADMIN = "e2e-admin-0123456789";
    static final Duration WAIT = Duration.ofSeconds(30);

    ForgeFlowClient client;

    @BeforeEach
    void connect() {
        client = ForgeFlowClient.builder("http://127.0.0.1:" + APP.getLocalPort()).token(ADMIN).build();
    }

    @AfterEach
    void close() {
        client.close();
    }

    static <T> T await(String what, Supplier<T> read, Predicate<T> done) throws InterruptedException {
        Instant deadline = Instant.now().plus(WAIT);
        T value = read.get();
        while (!done.test(value)) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError(what + " did not happen in " + WAIT + ": " + value);
            }
            Thread.sleep(100);
            value = read.get();
        }
        return value;
    }

    Run latestRun(String jobId) {
        List<Run> runs = client.listRuns(jobId, null, 1, null).items();
        return runs.isEmpty() ? null : runs.get(0);
    }

    Run awaitRun(String jobId, String status) throws InterruptedException {
        return await("a " + status + " run of job " + jobId, () -> latestRun(jobId),
                r -> r != null && status.equals(r.status()));
    }

    @Test
    void aChildWaitsForItsParentThenRunsAndBothShowTheLink() throws Exception {
        Job parent = client.submitJob(JobRequest.shell("wf-parent", "echo parent")
                .runAt(Instant.now().plusSeconds(2)).build()).job();
        Job child = client.submitJob(JobRequest.shell("wf-child", "echo child").dependsOn(parent.id())
                .onParentFailure(Job.ON_PARENT_FAILURE_WAIT).build()).job();

        assertThat(child.dependsOn()).containsExactly(parent.id());
        assertThat(child.onParentFailure()).isEqualTo("wait");
        assertThat(child.batchId()).isNull();
        assertThat(latestRun(child.id()).status()).isEqualTo(Run.WAITING);
        assertThat(client.listRuns(RunFilter.create().status(Run.WAITING), 500, null).items())
                .extracting(Run::jobId).contains(child.id());
        Job read = client.getJob(child.id());
        assertThat(read.parents()).containsExactly(new LinkedJob(parent.id(), "wf-parent", Job.ACTIVE, Run.PENDING));
        assertThat(read.children()).isEmpty();

        awaitRun(child.id(), Run.SUCCEEDED);
        Job parentAfter = client.getJob(parent.id());
        assertThat(parentAfter.children()).containsExactly(new LinkedJob(child.id(), "wf-child", Job.COMPLETED,
                Run.SUCCEEDED));
        assertThat(parentAfter.dependsOn()).isEmpty();
        assertThat(parentAfter.onParentFailure()).isNull();
        assertThat(client.getJob(child.id()).parents()).singleElement()
                .satisfies(p -> assertThat(p.runStatus()).isEqualTo(Run.SUCCEEDED));
    }

    @Test
    void aDeadParentCancelsAChildByDefault() throws Exception {
        Job parent = client.submitJob(JobRequest.shell("wf-failing", "exit 3").maxAttempts(1).build()).job();
        Job child = client.submitJob(JobRequest.shell("wf-cancelled", "echo never").dependsOn(parent.id()).build()).job();

        Run run = awaitRun(child.id(), Run.CANCELLED);

        assertThat(run.error()).as("names the parent").satisfiesAnyOf(e -> assertThat(e).contains(parent.id()),
                e -> assertThat(e).contains("wf-failing"));
        assertThat(client.getJob(child.id()).parents()).singleElement()
                .satisfies(p -> assertThat(p.runStatus()).isEqualTo(Run.DEAD));
    }

    @Test
    void aBatchRunsItsJobsInOrderReportsItsProgressAndCompletes() throws Exception {
        BatchRequest request = BatchRequest.builder().name("wf-import").idempotencyKey("wf-import-1")
                .job("a", JobRequest.shell("extract", "echo a").build())
                .job("b", JobRequest.shell("load-1", "echo b").dependsOn("a").build())
                .job("c", JobRequest.shell("load-2", "exit 1").maxAttempts(1).dependsOn("a").build())
                .job("d", JobRequest.shell("report", "echo d").dependsOn("b", "c").onParentFailure("run").build())
                .onComplete(JobRequest.shell("notify", "echo \"$FORGEFLOW_BATCH_ID $FORGEFLOW_BATCH_SUCCEEDED "
                        + "$FORGEFLOW_BATCH_DEAD $FORGEFLOW_BATCH_CANCELLED\"").build())
                .build();

        BatchSubmitResult submitted = client.submitBatch(request);

        assertThat(submitted.created()).isTrue();
        Batch batch = submitted.batch();
        assertThat(batch.jobIds()).hasSize(4);
        assertThat(batch.refs()).containsOnlyKeys("a", "b", "c", "d");
        assertThat(batch.refs().get("a")).isEqualTo(batch.jobIds().get(0));
        assertThat(batch.refs().get("d")).isEqualTo(batch.jobIds().get(3));
        assertThat(batch.total()).isEqualTo(4);
        assertThat(batch.name()).isEqualTo("wf-import");
        assertThat(batch.onCompleteJobId()).isNotNull();
        Job report = client.getJob(batch.refs().get("d"));
        assertThat(report.batchId()).isEqualTo(batch.id());
        assertThat(report.dependsOn()).containsExactly(batch.refs().get("b"), batch.refs().get("c"));
        assertThat(report.parents()).extracting(LinkedJob::name).containsExactlyInAnyOrder("load-1", "load-2");

        Batch done = await("batch completion", () -> client.getBatch(batch.id()), Batch::isCompleted);
        assertThat(done.succeeded()).isEqualTo(3);
        assertThat(done.dead()).isEqualTo(1);
        assertThat(done.waiting() + done.pending() + done.running()).isZero();
        assertThat(done.completedAt()).isNotNull();
        Run notify = awaitRun(done.onCompleteJobId(), Run.SUCCEEDED);
        assertThat(client.getRun(notify.id()).output()).as("the counts in its environment")
                .contains(batch.id() + " 3 1 0");

        BatchSubmitResult replay = client.submitBatch(request);
        assertThat(replay.created()).isFalse();
        assertThat(replay.batch().id()).isEqualTo(batch.id());
    }

    @Test
    void refusedWorkflowsAreApiErrorsNamingTheField() {
        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("orphan", "true")
                .dependsOn("01900000-0000-7000-8000-000000000000").build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).isEqualTo("depends_on");
                });
        assertThatThrownBy(() -> client.submitBatch(BatchRequest.builder()
                .job("a", JobRequest.shell("a", "true").dependsOn("b").build())
                .job("b", JobRequest.shell("b", "true").dependsOn("a").build()).build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).matches("jobs\\[[01]]\\.depends_on");
                });
        client.submitBatch(BatchRequest.builder().idempotencyKey("wf-conflict")
                .job(JobRequest.shell("one", "true").build()).build());
        assertThatThrownBy(() -> client.submitBatch(BatchRequest.builder().idempotencyKey("wf-conflict")
                .job(JobRequest.shell("another", "true").build()).build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.isConflict()).isTrue();
                    assertThat(e.code()).isEqualTo("idempotency_conflict");
                });
        assertThatThrownBy(() -> client.getBatch("01900000-0000-7000-8000-000000000000"))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> assertThat(e.isNotFound()).isTrue());
    }
}
