package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, the idempotency key's index. It was a unique constraint on {@code jobs.idempotency_key}, with an entry for
 * every job, keyed or not; migration 0029 replaced it with a unique index on the keyed jobs only ({@code WHERE
 * idempotency_key IS NOT NULL}), one index write less per job and one per one-off completion. Every writer of a job
 * must name that predicate in its {@code ON CONFLICT}: one that does not fails at once ("no unique or exclusion
 * constraint matching the ON CONFLICT specification"). This test drives each writer through a running node: REST
 * one-off and recurring, a batch, and {@code forgeflow.enqueue}. The group commit's batch statement, which falls back
 * to single writes when it fails, is held to it in PostgresJobRepositoryIT.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class IdempotencyPartialIndexIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("job-rules-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "partial-index-node"));

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** The migrated schema: the keyed jobs' index, no constraint. */
    @BeforeAll
    static void keyedJobsOnly() {
        pg.jdbi().useHandle(h -> {
            assertThat(h.createQuery("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                    + "AND indexname = 'jobs_idempotency_key_unique'").mapTo(String.class).one())
                    .contains("UNIQUE").contains("WHERE (idempotency_key IS NOT NULL)");
            assertThat(h.createQuery("SELECT count(*) FROM pg_constraint WHERE conname = 'jobs_idempotency_key_unique'")
                    .mapTo(Long.class).one()).isZero();
        });
    }

    @Test
    void aOneOffSubmissionWithAKeyIsStoredOnceAndReplayed() throws Exception {
        storedOnceAndReplayed("{\"name\": \"once\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"idempotency_key\": \"partial-once\"}", "partial-once");
    }

    @Test
    void aRecurringSubmissionWithAKeyIsStoredOnceAndReplayed() throws Exception {
        storedOnceAndReplayed("{\"name\": \"nightly\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"cron_expr\": \"0 3 * * *\", \"idempotency_key\": \"partial-nightly\"}", "partial-nightly");
    }

    void storedOnceAndReplayed(String body, String key) throws Exception {
        HttpResponse<String> first = post("/api/jobs", body);
        HttpResponse<String> again = post("/api/jobs", body);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(id(again)).isEqualTo(id(first));
        assertThat(jobsWithKey(key)).isEqualTo(1);
    }

    @Test
    void submissionsWithoutAKeyAreEachStored() throws Exception {
        String body = "{\"name\": \"keyless\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}";
        assertThat(post("/api/jobs", body).statusCode()).isEqualTo(201);
        assertThat(post("/api/jobs", body).statusCode()).isEqualTo(201);
        long keyless = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs WHERE name = 'keyless'")
                .mapTo(Long.class).one());
        assertThat(keyless).isEqualTo(2);
    }

    @Test
    void aBatchIsStoredOnceAndReplayed() throws Exception {
        String body = """
                {"idempotency_key": "partial-batch", "jobs": [
                  {"ref": "a", "name": "batched-extract", "executor": "shell", "payload": {"command": "true"}},
                  {"ref": "b", "name": "batched-load", "executor": "shell", "payload": {"command": "true"},
                   "depends_on": ["a"]}
                ]}""";
        HttpResponse<String> first = post("/api/batches", body);
        HttpResponse<String> again = post("/api/batches", body);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(id(again)).isEqualTo(id(first));
        long batched = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM jobs WHERE name LIKE 'batched-%'").mapTo(Long.class).one());
        assertThat(batched).isEqualTo(2);
    }

    @Test
    void enqueueInTheCallersTransactionStoresOnceAndSaysSo() {
        Map<String, Object> first = enqueue("partial-sql");
        Map<String, Object> again = enqueue("partial-sql");

        assertThat(first.get("created")).isEqualTo(true);
        assertThat(again.get("created")).isEqualTo(false);
        assertThat(again.get("job_id")).isEqualTo(first.get("job_id"));
        assertThat(jobsWithKey("partial-sql")).isEqualTo(1);
    }

    static Map<String, Object> enqueue(String key) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT job_id, created FROM forgeflow.enqueue(name => 'sql', "
                        + "executor => 'shell', payload => '{\"command\": \"true\"}'::jsonb, idempotency_key => :key)")
                .bind("key", key).mapToMap().one());
    }

    static long jobsWithKey(String key) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs WHERE idempotency_key = :key")
                .bind("key", key).mapTo(Long.class).one());
    }

    static String id(HttpResponse<String> reply) throws Exception {
        JsonNode job = JSON.readTree(reply.body());
        return job.path("id").asText();
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
