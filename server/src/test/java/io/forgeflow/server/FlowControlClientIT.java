package io.forgeflow.server;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.Debounce;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Run;
import io.forgeflow.client.SubmitResult;
import io.forgeflow.client.Throttle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Java client's debounce and throttle (README "Flow control") against a real node on a real PostgreSQL: what it
 * sends is stored, the job shows it, a joined submission names its run, PATCH changes the throttle, errors name the part.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FlowControlClientIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("auth-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "flow-client-worker"));

    static final String ADMIN = "e2e-admin-0123456789";

    ForgeFlowClient client;

    @BeforeEach
    void connect() {
        client = ForgeFlowClient.builder("http://127.0.0.1:" + APP.getLocalPort()).token(ADMIN).build();
    }

    @AfterEach
    void close() {
        client.close();
    }

    List<Run> runs(String jobId) {
        return client.listRuns(jobId, null, 100, null).items();
    }

    @Test
    void trailingSubmissionsJoinTheFirstRunWhichTakesTheLastPayload() {
        SubmitResult first = client.submitJob(JobRequest.shell("sync-user-42", "echo 1").debounce("user-42", 60)
                .build());
        SubmitResult second = client.submitJob(JobRequest.shell("sync-user-42", "echo 2").debounce("user-42", 60)
                .build());
        SubmitResult third = client.submitJob(JobRequest.shell("sync-user-42", "echo 3")
                .debounce("user-42", 60, 300, Debounce.TRAILING).build());

        assertThat(first.created()).isTrue();
        assertThat(first.debouncedInto()).isNull();
        Job job = first.job();
        assertThat(job.debounce()).as("stored with its defaults").isEqualTo(new Debounce("user-42", 60, 600, "trailing"));
        List<Run> runs = runs(job.id());
        assertThat(runs).hasSize(1);
        for (SubmitResult joined : List.of(second, third)) {
            assertThat(joined.created()).isFalse();
            assertThat(joined.debounced()).isTrue();
            assertThat(joined.debouncedInto()).isEqualTo(runs.get(0).id());
            assertThat(joined.job().id()).isEqualTo(job.id());
        }
        assertThat(client.getJob(job.id()).payload()).containsEntry("command", "echo 3");
        assertThat(runs(job.id())).hasSize(1);
    }

    @Test
    void aLeadingDebounceRunsTheFirstAndJoinsTheRest() {
        SubmitResult first = client.submitJob(JobRequest.shell("lead", "true")
                .debounce("lead-1", 60, null, Debounce.LEADING).build());
        SubmitResult again = client.submitJob(JobRequest.shell("lead", "true")
                .debounce("lead-1", 60, null, Debounce.LEADING).build());

        assertThat(first.job().debounce()).isEqualTo(new Debounce("lead-1", 60, null, "leading"));
        assertThat(again.debouncedInto()).isEqualTo(runs(first.job().id()).get(0).id());
        assertThat(again.job().id()).isEqualTo(first.job().id());
    }

    @Test
    void aThrottleIsStoredAndShownInTheJobAndTheList() {
        Job job = client.submitJob(JobRequest.shell("partner-call", "true").cron("0 3 * * *")
                .throttle("partner:7", 5, 2).build()).job();
        assertThat(job.throttle()).isEqualTo(new Throttle("partner:7", 5, 2));
        assertThat(client.getJob(job.id()).throttle()).isEqualTo(new Throttle("partner:7", 5, 2));
        assertThat(client.listJobs().items()).filteredOn(j -> j.id().equals(job.id())).singleElement()
                .satisfies(j -> assertThat(j.throttle()).isEqualTo(new Throttle("partner:7", 5, 2)));
    }

    @Test
    void aPatchChangesAndRemovesTheThrottle() {
        Job job = client.submitJob(JobRequest.shell("partner-call", "true").cron("0 3 * * *")
                .throttle("partner:7", 5, 2).build()).job();

        Job changed = client.updateJob(job.id(), JobUpdate.create().throttle("partner:8", 10, 60));
        assertThat(changed.throttle()).isEqualTo(new Throttle("partner:8", 10, 60));
        assertThat(client.getJob(job.id()).throttle()).isEqualTo(new Throttle("partner:8", 10, 60));
        Job removed = client.updateJob(job.id(), JobUpdate.create().noThrottle());
        assertThat(removed.throttle()).isNull();
        assertThat(client.getJob(job.id()).throttle()).isNull();
    }

    /** JobPatch refuses a debounce with its own message; REST must let it reach it instead of "unknown field". */
    @Test
    void aPatchOfTheDebounceIsRefusedSayingItCannotChange() throws Exception {
        Job job = client.submitJob(JobRequest.shell("sync", "true").debounce("patch-1", 60).build()).job();
        java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + APP.getLocalPort()
                                + "/api/jobs/" + job.id()))
                        .header("Authorization", "Bearer " + ADMIN).header("Content-Type", "application/json")
                        .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"debounce\": {\"key\": \"other\", \"period_seconds\": 5}}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(422);
        assertThat(answer.body()).contains("\"field\":\"debounce\"").contains("debounce cannot be changed");
    }

    @Test
    void aBadDebounceOrThrottleIs422NamingThePart() {
        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("bad", "true").debounce("k", 0).build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).isEqualTo("debounce.period_seconds");
                });
        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("bad", "true").throttle("k", null, 2).build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.field()).isEqualTo("throttle.count");
                });
        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("bad", "true").cron("@hourly")
                .debounce("k", 5).build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> assertThat(e.status()).isEqualTo(422));
    }
}
