package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.rest.OpenApiContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real node on a real PostgreSQL, its worker running a real shell job, answers as openapi.json says: every answer
 * of the routes below is validated against the document's schema for its route and status (OpenApiContractTest does
 * every route and status on the REST test server; this makes sure the PostgreSQL adapters' rows come out the same).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OpenApiNodeIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("observability-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "openapi-worker"));
    static final OpenApiContract CONTRACT = OpenApiContract.load();
    static final String UNKNOWN = "01900000-0000-7000-8000-000000000000";

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void aRealNodesAnswersMatchTheDocument() throws Exception {
        JsonNode oneOff = valid("POST", "/api/jobs", "{\"name\": \"greet\", \"executor\": \"shell\","
                + " \"payload\": {\"command\": \"echo hello; echo oops >&2; exit 3\"}, \"max_attempts\": 2}", 201);
        String jobId = oneOff.get("id").asText();
        JsonNode dead = awaitDead(jobId);
        JsonNode detail = valid("GET", "/api/runs/" + dead.get("id").asText(), null, 200);
        assertThat(detail.get("attempts")).hasSize(2);
        assertThat(detail.get("worker_id").asText()).isEqualTo("openapi-worker");
        valid("POST", "/api/runs/" + dead.get("id").asText() + "/requeue", null, 200);
        valid("GET", "/api/jobs/" + jobId, null, 200);

        String cron = "{\"name\": \"nightly\", \"executor\": \"shell\", \"cron_expr\": \"0 3 * * *\", "
                + "\"timezone\": \"Europe/Paris\", \"queue\": \"reports\", \"concurrency_key\": \"tenant-1\", "
                + "\"max_concurrent\": 1, \"overlap\": \"skip\", \"idempotency_key\": \"nightly-openapi\", "
                + "\"payload\": {\"command\": \"true\"}}";
        String recurring = valid("POST", "/api/jobs", cron, 201).get("id").asText();
        valid("POST", "/api/jobs", cron, 200);
        valid("POST", "/api/jobs", cron.replace("nightly\"", "nightly-2\""), 409);
        valid("PATCH", "/api/jobs/" + recurring, "{\"cron_expr\": \"30 4 * * *\", \"priority\": 2}", 200);
        valid("POST", "/api/jobs/" + recurring + "/pause", null, 200);
        valid("POST", "/api/jobs/" + recurring + "/resume", null, 200);
        valid("POST", "/api/jobs/" + recurring + "/trigger", null, 201);
        valid("GET", "/api/jobs?limit=10", null, 200);
        valid("GET", "/api/runs?limit=10", null, 200);
        valid("GET", "/api/runs?job_id=" + recurring, null, 200);
        valid("DELETE", "/api/jobs/" + recurring + "?cancel_running=true", null, 200);
        valid("GET", "/api/jobs?status=deleted", null, 200);

        valid("PUT", "/api/queues/reports", "{\"max_running\": 2, \"rate_limit\": {\"count\": 10, \"per_seconds\": 60}}",
                200);
        valid("POST", "/api/queues/reports/pause", null, 200);
        valid("POST", "/api/queues/reports/resume", null, 200);
        valid("GET", "/api/queues", null, 200);
        valid("GET", "/api/queues/default", null, 200);
        valid("PUT", "/api/tenants/acme", "{\"weight\": 3, \"max_running\": 5, \"rate_limit\": {\"count\": 10, "
                + "\"per_seconds\": 60}}", 200);
        valid("PUT", "/api/tenants/acme", "{\"weight\": null, \"rate_limit\": null}", 200);
        valid("GET", "/api/tenants", null, 200);
        valid("GET", "/api/tenants/acme", null, 200);
        valid("GET", "/api/tenants/nobody", null, 200);
        valid("PUT", "/api/tenants/acme", "{\"weight\": 0}", 422);
        assertThat(valid("GET", "/api/nodes", null, 200).get("items")).isNotEmpty();
        valid("GET", "/api/stats", null, 200);
        valid("GET", "/api/schedules/preview?cron_expr=30+2+*+*+*&timezone=America/New_York"
                + "&after=2026-03-07T00:00:00Z&count=3", null, 200);
        valid("GET", "/healthz", null, 200);
        valid("GET", "/readyz", null, 200);
        valid("GET", "/api/openapi.json", null, 200);

        valid("GET", "/api/jobs/" + UNKNOWN, null, 404);
        valid("GET", "/api/runs?limit=many", null, 400);
        valid("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", \"priority\": 12}", 422);
        valid("POST", "/api/jobs/" + jobId + "/resume", null, 409);
        valid("GET", "/api/schedules/preview?cron_expr=nope", null, 422);
    }

    private JsonNode awaitDead(String jobId) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            JsonNode items = valid("GET", "/api/runs?job_id=" + jobId, null, 200).get("items");
            if (items.size() == 1 && items.get(0).get("status").asText().equals("dead")) {
                return items.get(0);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the run of job " + jobId + " did not end dead");
    }

    /** Sends, checks the status, validates the answer against the document, gives its JSON (null when none). */
    private JsonNode valid(String method, String path, String body, int status) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(status);
        assertThat(CONTRACT.problems(method, path, r.statusCode(), r.headers().firstValue("Content-Type").orElse(null),
                r.body())).as(method + " " + path + " " + status + " against openapi.json").isEmpty();
        return r.body().isEmpty() ? null : json.readTree(r.body());
    }
}
