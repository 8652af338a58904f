package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 42 part two, tenants' weights and limits over REST on a real node and PostgreSQL
 * (tenant-settings-test-config.yml: a cluster-wide admin token, a read-only token, tokens bound to acme). PUT then
 * GET round-trips through the {@code tenants} table; the list holds default and the tenants of jobs; writing needs
 * admin; a tenant-bound token is refused on every route of {@code /api/tenants}, and nothing changes.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantSettingsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("tenant-settings-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "tenant-settings-node"));

    static final String ADMIN = "tenants-admin-0123456789";
    static final String READ = "tenants-read-0123456789";
    static final String ACME = "tenants-acme-0123456789";
    static final String ACME_ADMIN = "tenants-acme-admin-0123456789";
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void putThenGetRoundTripsThroughTheDatabase() throws Exception {
        HttpResponse<String> put = call("PUT", "/api/tenants/round-trip", "{\"weight\": 3, \"max_running\": 20, "
                + "\"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}", ADMIN);

        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        assertThat(put.body()).isEqualTo("{\"name\":\"round-trip\",\"weight\":3,\"max_running\":20,\"rate_limit\":"
                + "{\"count\":100,\"per_seconds\":60},\"pending\":0,\"running\":0,\"starts_in_window\":0}");
        assertThat(call("GET", "/api/tenants/round-trip", null, READ).body()).isEqualTo(put.body());
        assertThat(text("SELECT weight || ' ' || max_running || ' ' || rate_count || '/' || rate_per_seconds "
                + "FROM tenants WHERE name = 'round-trip'")).isEqualTo("3 20 100/60");

        // a field left out keeps its value; null resets the weight to 1 and clears a limit
        JsonNode partial = body(call("PUT", "/api/tenants/round-trip", "{\"weight\": null, \"rate_limit\": null}",
                ADMIN));
        assertThat(partial.get("weight").asInt()).isEqualTo(1);
        assertThat(partial.get("max_running").asInt()).isEqualTo(20);
        assertThat(partial.get("rate_limit").isNull()).isTrue();
        assertThat(body(call("GET", "/api/tenants/round-trip", null, ADMIN))).isEqualTo(partial);

        HttpResponse<String> bad = call("PUT", "/api/tenants/round-trip", "{\"weight\": 1001}", ADMIN);
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(422);
        assertThat(body(bad).get("code").asText()).isEqualTo("validation_failed");
        assertThat(body(bad).get("field").asText()).isEqualTo("weight");
        HttpResponse<String> badName = call("GET", "/api/tenants/Round", null, ADMIN);
        assertThat(badName.statusCode()).as(badName.body()).isEqualTo(422);
        assertThat(body(badName).get("field").asText()).isEqualTo("name");
    }

    @Test
    void theListHoldsDefaultAndATenantThatHasJobsWithItsPendingRuns() throws Exception {
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> job = call("POST", "/api/jobs", "{\"name\": \"listed\", \"executor\": \"noop\", "
                    + "\"payload\": {}}", ADMIN, "listed-tenant");
            assertThat(job.statusCode()).as(job.body()).isEqualTo(201);
        }

        JsonNode items = body(call("GET", "/api/tenants", null, READ)).get("items");

        List<String> names = new ArrayList<>();
        items.forEach(t -> names.add(t.get("name").asText()));
        assertThat(names).contains("default", "listed-tenant").isSorted();
        JsonNode listed = items.get(names.indexOf("listed-tenant"));
        assertThat(listed.get("weight").asInt()).isEqualTo(1);
        assertThat(listed.get("pending").asLong()).as("noop runs are never claimed here").isEqualTo(2);
        assertThat(listed.get("max_running").isNull()).isTrue();
        assertThat(listed.get("rate_limit").isNull()).isTrue();
    }

    @Test
    void aReadOnlyTokenCannotConfigureATenant() throws Exception {
        HttpResponse<String> refused = call("PUT", "/api/tenants/read-only", "{\"weight\": 5}", READ);

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(body(refused).get("code").asText()).isEqualTo("forbidden");
        assertThat(text("SELECT count(*)::text FROM tenants WHERE name = 'read-only'")).isEqualTo("0");
    }

    @Test
    void aTenantBoundTokenIsRefusedOnEveryTenantsRouteEvenWithAdmin() throws Exception {
        for (String[] route : new String[][]{{"GET", "/api/tenants"}, {"GET", "/api/tenants/acme"},
                {"PUT", "/api/tenants/acme"}, {"PUT", "/api/tenants/other"}}) {
            String body = route[0].equals("PUT") ? "{\"weight\": 1000}" : null;
            HttpResponse<String> refused = call(route[0], route[1], body, ACME_ADMIN);
            assertThat(refused.statusCode()).as(route[0] + " " + route[1] + ": " + refused.body()).isEqualTo(403);
            assertThat(body(refused).get("code").asText()).isEqualTo("tenant_forbidden");
        }
        for (String path : List.of("/api/tenants", "/api/tenants/acme")) {
            HttpResponse<String> refused = call("GET", path, null, ACME);
            assertThat(refused.statusCode()).as(path + ": " + refused.body()).isEqualTo(403);
            assertThat(body(refused).get("code").asText()).isEqualTo("tenant_forbidden");
        }
        // without admin the scope check answers first
        HttpResponse<String> noAdmin = call("PUT", "/api/tenants/acme", "{\"weight\": 1000}", ACME);
        assertThat(noAdmin.statusCode()).as(noAdmin.body()).isEqualTo(403);
        assertThat(text("SELECT count(*)::text FROM tenants WHERE name IN ('acme', 'other')")).isEqualTo("0");
    }

    static String text(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(String.class).one());
    }

    static JsonNode body(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static HttpResponse<String> call(String method, String path, String body, String token) throws Exception {
        return call(method, path, body, token, null);
    }

    static HttpResponse<String> call(String method, String path, String body, String token, String tenant)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + token);
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (tenant != null) {
            request.header("X-ForgeFlow-Tenant", tenant);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
