package io.forgeflow.contract;

import com.sun.net.httpserver.HttpServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.rest.OpenApiResource;
import io.forgeflow.generated.ApiClient;
import io.forgeflow.generated.ApiException;
import io.forgeflow.generated.api.JobsApi;
import io.forgeflow.generated.api.OperationsApi;
import io.forgeflow.generated.api.QueuesApi;
import io.forgeflow.generated.api.RunsApi;
import io.forgeflow.generated.api.SchedulesApi;
import io.forgeflow.generated.api.TenantsApi;
import io.forgeflow.generated.model.Batch;
import io.forgeflow.generated.model.BatchSubmission;
import io.forgeflow.generated.model.BatchJob;
import io.forgeflow.generated.model.Job;
import io.forgeflow.generated.model.JobBody;
import io.forgeflow.generated.model.JobPatch;
import io.forgeflow.generated.model.JobSubmission;
import io.forgeflow.generated.model.QueueSettings;
import io.forgeflow.generated.model.TenantSettings;
import io.forgeflow.generated.model.Run;
import io.forgeflow.generated.model.RunDetail;
import io.forgeflow.server.ForgeFlowApplication;
import io.forgeflow.server.ForgeFlowConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Java client generated at build time from the OpenAPI document (openapi-generator 7, library native, no hand
 * edits) drives a real node on PostgreSQL through every route: each executor, a batch with on_complete, lists and
 * filters, reads, PATCH, the job and run controls, queues, the schedule preview, stats and nodes. Every answer, with
 * runs and jobs in every state (waiting, pending, running, succeeded, dead, cancelled), deserialises into the
 * generated models.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class GeneratedClientIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> NODE = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("contract-node.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "contract-worker"));

    static HttpServer webhook;
    JobsApi jobs;
    RunsApi runs;
    QueuesApi queues;
    OperationsApi operations;
    SchedulesApi schedules;
    TenantsApi tenants;

    @BeforeAll
    static void startWebhookReceiver() throws Exception {
        webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        webhook.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] answer = "{\"ok\": true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        webhook.start();
    }

    @AfterAll
    static void stopWebhookReceiver() {
        webhook.stop(0);
    }

    void clients() {
        ApiClient client = new ApiClient();
        client.updateBaseUri("http://127.0.0.1:" + NODE.getLocalPort());
        client.setReadTimeout(Duration.ofSeconds(30));
        jobs = new JobsApi(client);
        runs = new RunsApi(client);
        queues = new QueuesApi(client);
        operations = new OperationsApi(client);
        schedules = new SchedulesApi(client);
        tenants = new TenantsApi(client);
    }

    @Test
    void theServedDocumentIsTheOneTheClientWasGeneratedFrom() throws Exception {
        HttpResponse<byte[]> served = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + NODE.getLocalPort() + "/api/openapi.json")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo(OpenApiResource.load());
    }

    @Test
    void everyRouteAnswersWhatTheGeneratedModelsRead() throws Exception {
        clients();
        assertThat(operations.healthz()).isNotNull();
        assertThat(operations.readyz()).isNotNull();

        // each executor, and runs in every state
        Job shell = jobs.submitJob(new JobSubmission().name("contract-shell").executor("shell")
                .payload(Map.of("command", "echo hello")).queue("contract").putLabelsItem("team", "contract"));
        Job failing = jobs.submitJob(new JobSubmission().name("contract-dead").executor("shell")
                .payload(Map.of("command", "exit 3")).maxAttempts(1));
        Job hook = jobs.submitJob(new JobSubmission().name("contract-http").executor("http")
                .payload(Map.of("url", "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook",
                        "method", "POST", "headers", Map.of("Authorization", "Bearer s3cret"))));
        Job sleeping = jobs.submitJob(new JobSubmission().name("contract-running").executor("shell")
                .payload(Map.of("command", "sleep 60")));
        Job later = jobs.submitJob(new JobSubmission().name("contract-later").executor("shell")
                .payload(Map.of("command", "true")).runAt(OffsetDateTime.now(ZoneOffset.UTC).plusDays(1)));
        Job embedded = jobs.submitJob(new JobSubmission().name("contract-java").executor("java")
                .payload(Map.of("handler", "nobody-has-it")));
        Job noop = jobs.submitJob(new JobSubmission().name("contract-noop").executor("noop"));
        Job nightly = jobs.submitJob(new JobSubmission().name("contract-cron").executor("shell")
                .payload(Map.of("command", "true")).cronExpr("0 3 * * *").timezone("Europe/Paris"));

        Run succeeded = awaitRun(shell.getId(), Run.StatusEnum.SUCCEEDED);
        Run dead = awaitRun(failing.getId(), Run.StatusEnum.DEAD);
        awaitRun(hook.getId(), Run.StatusEnum.SUCCEEDED);
        Run running = awaitRun(sleeping.getId(), Run.StatusEnum.RUNNING);
        assertThat(succeeded.getLeaseExpiresAt()).isNull();
        assertThat(succeeded.getError()).isNull();
        assertThat(dead.getError()).isNotNull();
        assertThat(running.getLeaseExpiresAt()).isNotNull();
        assertThat(runs.getRun(running.getId()).getStatus()).isEqualTo(RunDetail.StatusEnum.RUNNING);
        assertThat(runs.getRun(succeeded.getId()).getAttempts()).isNotEmpty();
        assertThat(jobs.getJob(embedded.getId())).isNotNull();
        assertThat(jobs.getJob(noop.getId())).isNotNull();

        // a batch with on_complete
        Batch batch = jobs.submitBatch(new BatchSubmission().name("contract-batch")
                .addJobsItem(new BatchJob().ref("a").name("contract-a").executor("shell")
                        .payload(Map.of("command", "true")))
                .addJobsItem(new BatchJob().ref("b").name("contract-b").executor("shell")
                        .payload(Map.of("command", "true")).addDependsOnItem("a"))
                .onComplete(new JobBody().name("contract-done").executor("shell")
                        .payload(Map.of("command", "true"))));
        assertThat(jobs.getBatch(batch.getId()).getTotal()).isGreaterThanOrEqualTo(2);
        Run waiting = awaitRun(batch.getJobIds().get(1), null);
        assertThat(waiting).isNotNull();

        // lists and filters
        assertThat(jobs.listJobs(null, null, null, null, null, null, null).getItems()).isNotEmpty();
        assertThat(jobs.listJobs("completed", "contract", List.of("team:contract"), "contract-", 10, null, null).getItems())
                .extracting(Job::getName).containsExactly("contract-shell");
        assertThat(runs.listRuns(null, null, null, null, null, null, null, null, null, null).getItems()).isNotEmpty();
        assertThat(runs.listRuns(shell.getId(), "succeeded", "contract", List.of("team:contract"),
                OffsetDateTime.now(ZoneOffset.UTC).minusHours(1), OffsetDateTime.now(ZoneOffset.UTC).plusHours(1),
                OffsetDateTime.now(ZoneOffset.UTC).minusHours(1), 10, null, null).getItems()).hasSize(1);
        for (Job job : jobs.listJobs(null, null, null, null, 500, null, null).getItems()) {
            assertThat(jobs.getJob(job.getId()).getId()).isEqualTo(job.getId());
        }
        for (Run run : runs.listRuns(null, null, null, null, null, null, null, 500, null, null).getItems()) {
            assertThat(runs.getRun(run.getId()).getId()).isEqualTo(run.getId());
        }

        // PATCH, the job controls
        Job patched = jobs.updateJob(hook.getId(), new JobPatch().name("contract-http-2").priority(2), null);
        assertThat(patched.getName()).isEqualTo("contract-http-2");
        Job paused = jobs.pauseJob(nightly.getId(), new io.forgeflow.generated.model.PauseJobRequest().note("contract"));
        assertThat(paused.getStatus()).isEqualTo(Job.StatusEnum.PAUSED);
        assertThat(paused.getPausedNote()).isEqualTo("contract");
        assertThat(jobs.resumeJob(nightly.getId()).getStatus()).isEqualTo(Job.StatusEnum.ACTIVE);
        Run triggered = jobs.triggerJob(nightly.getId());
        assertThat(triggered.getJobId()).isEqualTo(nightly.getId());
        assertThat(jobs.cancelJob(nightly.getId())).isNotNull();

        // the run controls
        Run pending = awaitRun(later.getId(), Run.StatusEnum.PENDING);
        assertThat(runs.cancelRun(pending.getId()).getStatus()).isEqualTo(Run.StatusEnum.CANCELLED);
        assertThat(runs.requeueRun(dead.getId()).getStatus()).isEqualTo(Run.StatusEnum.PENDING);
        runs.cancelRun(running.getId());
        awaitRun(sleeping.getId(), Run.StatusEnum.CANCELLED);
        for (Run run : runs.listRuns(null, null, null, null, null, null, null, 500, null, null).getItems()) {
            assertThat(runs.getRun(run.getId()).getId()).isEqualTo(run.getId());
        }

        // queues, schedules, stats, nodes
        assertThat(queues.listQueues(null).getItems()).isNotNull();
        assertThat(queues.configureQueue("contract", new QueueSettings().maxRunning(2)).getName()).isEqualTo("contract");
        assertThat(queues.getQueue("contract").getName()).isEqualTo("contract");
        assertThat(queues.pauseQueue("contract").getName()).isEqualTo("contract");
        assertThat(queues.resumeQueue("contract").getName()).isEqualTo("contract");
        // tenants' weights and limits
        assertThat(tenants.configureTenant("contract", new TenantSettings().weight(3).maxRunning(20)).getWeight())
                .isEqualTo(3);
        assertThat(tenants.getTenant("contract").getMaxRunning()).isEqualTo(20);
        assertThat(tenants.listTenants().getItems()).extracting(t -> t.getName()).contains("contract", "default");
        assertThat(schedules.previewSchedule("0 3 * * *", "Europe/Paris", null, 3, null, null, null, null).getItems()).hasSize(3);
        assertThat(operations.getStats(null)).isNotNull();
        assertThat(operations.listNodes().getItems()).isNotEmpty();

        // delete, then purge
        assertThat(jobs.deleteJob(later.getId(), null, null).getStatus()).isEqualTo(Job.StatusEnum.DELETED);
        jobs.deleteJob(embedded.getId(), true, true);
        ApiException gone = org.junit.jupiter.api.Assertions.assertThrows(ApiException.class,
                () -> jobs.getJob(embedded.getId()));
        assertThat(gone.getCode()).isEqualTo(404);
    }

    /** The job's latest run, once it has {@code status} (any status when null), within 30 s. */
    Run awaitRun(String jobId, Run.StatusEnum status) throws Exception {
        return await("a run of " + jobId + " in " + status, () -> {
            List<Run> items = runs.listRuns(jobId, null, null, null, null, null, null, 10, null, null).getItems();
            return items.stream().filter(r -> status == null || r.getStatus() == status).findFirst().orElse(null);
        });
    }

    static <T> T await(String what, Callable<T> probe) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            T value = probe.call();
            if (value != null) {
                return value;
            }
            assertThat(System.nanoTime()).as(what + " within 30 s").isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
    }
}
