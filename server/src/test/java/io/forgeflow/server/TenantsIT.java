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
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 42, tenants, on a real node and PostgreSQL (tenants-test-config.yml: a cluster-wide admin token, tokens bound
 * to tenants acme and beta). Isolation route by route: a tenant-bound token that names another tenant's job, run or
 * batch by id gets exactly the 404 of an id that does not exist, and nothing changes; cluster-wide routes refuse it.
 * Keys are per tenant: the same idempotency or unique key in two tenants makes two jobs.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "tenants-node"));

    static final String ADMIN = "tenants-admin-0123456789";
    static final String ACME = "tenants-acme-0123456789";
    static final String BETA = "tenants-beta-0123456789";
    static final String ACME_ADMIN = "tenants-acme-admin-0123456789";
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static String job(String name) {
        return "{\"name\": \"" + name + "\", \"executor\": \"noop\", \"payload\": {}}";
    }

    @Test
    void aTenantBoundTokenSubmitsIntoItsTenantAndListsOnlyIt() throws Exception {
        JsonNode acme = created(call("POST", "/api/jobs", job("acme-listed"), ACME));
        JsonNode beta = created(call("POST", "/api/jobs", job("beta-listed"), BETA));

        assertThat(acme.get("tenant").asText()).isEqualTo("acme");
        assertThat(beta.get("tenant").asText()).isEqualTo("beta");
        assertThat(ids(call("GET", "/api/jobs?limit=500", null, ACME))).contains(id(acme)).doesNotContain(id(beta));
        assertThat(ids(call("GET", "/api/jobs?limit=500", null, BETA))).contains(id(beta)).doesNotContain(id(acme));
        JsonNode acmeRuns = body(call("GET", "/api/runs?limit=500", null, ACME));
        List<String> runJobs = new ArrayList<>();
        acmeRuns.get("items").forEach(r -> {
            runJobs.add(r.get("job_id").asText());
            assertThat(r.get("tenant").asText()).isEqualTo("acme");
        });
        assertThat(runJobs).contains(id(acme)).doesNotContain(id(beta));
        // a cluster-wide token sees both, one tenant by its header or ?tenant=
        assertThat(ids(call("GET", "/api/jobs?limit=500", null, ADMIN))).contains(id(acme), id(beta));
        assertThat(ids(call("GET", "/api/jobs?limit=500&tenant=beta", null, ADMIN))).contains(id(beta))
                .doesNotContain(id(acme));
        assertThat(ids(call("GET", "/api/jobs?limit=500", null, ADMIN, "acme"))).contains(id(acme))
                .doesNotContain(id(beta));
    }

    @Test
    void everyRouteThatNamesAnotherTenantsObjectAnswersTheNotFoundOfAnUnknownId() throws Exception {
        JsonNode beta = created(call("POST", "/api/jobs", "{\"name\": \"beta-owned\", \"executor\": \"noop\", "
                + "\"payload\": {}, \"run_at\": \"2099-01-01T00:00:00Z\"}", BETA));
        String job = id(beta);
        String run = body(call("GET", "/api/runs?job_id=" + job, null, BETA)).get("items").get(0).get("id").asText();
        JsonNode batch = created(call("POST", "/api/batches", "{\"jobs\": [" + job("beta-batched") + "]}", BETA));
        JsonNode cron = created(call("POST", "/api/jobs", "{\"name\": \"beta-cron\", \"executor\": \"noop\", "
                + "\"payload\": {}, \"cron_expr\": \"0 3 * * *\"}", BETA));
        String recurring = id(cron);
        String before = snapshot();
        String unknown = UUID.randomUUID().toString();

        List<String[]> routes = List.of(
                new String[]{"GET", "/api/jobs/%s", null, "job"},
                new String[]{"PATCH", "/api/jobs/%s", "{\"priority\": 1}", "job"},
                new String[]{"DELETE", "/api/jobs/%s", null, "job"},
                new String[]{"DELETE", "/api/jobs/%s?purge=true", null, "job"},
                new String[]{"POST", "/api/jobs/%s/pause", null, "job"},
                new String[]{"POST", "/api/jobs/%s/resume", null, "job"},
                new String[]{"POST", "/api/jobs/%s/cancel", null, "job"},
                new String[]{"POST", "/api/jobs/%s/trigger", null, "job"},
                new String[]{"GET", "/api/runs/%s", null, "run"},
                new String[]{"POST", "/api/runs/%s/requeue", null, "run"},
                new String[]{"POST", "/api/runs/%s/cancel", null, "run"},
                new String[]{"GET", "/api/batches/%s", null, "batch"});
        for (String[] r : routes) {
            String target = r[3].equals("job") ? job : r[3].equals("run") ? run : id(batch);
            assertNotFoundAsUnknown(r[0], r[1], r[2], target, unknown);
        }
        assertNotFoundAsUnknown("POST", "/api/jobs/%s/backfill",
                "{\"from\": \"2026-04-01T00:00:00Z\", \"to\": \"2026-04-03T00:00:00Z\"}", recurring, unknown);
        HttpResponse<String> preview = call("GET", "/api/schedules/preview?job_id=" + recurring, null, ACME);
        assertThat(preview.statusCode()).as(preview.body()).isEqualTo(404);
        // a job list filtered to another job's runs shows nothing of it
        assertThat(body(call("GET", "/api/runs?job_id=" + job, null, ACME)).get("items")).isEmpty();

        assertThat(snapshot()).as("nothing of beta's changed").isEqualTo(before);
        // the owner still reaches all of it
        assertThat(call("GET", "/api/jobs/" + job, null, BETA).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/api/runs/" + run, null, BETA).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/api/batches/" + id(batch), null, BETA).statusCode()).isEqualTo(200);
        assertThat(body(call("GET", "/api/batches/" + id(batch), null, BETA)).get("tenant").asText()).isEqualTo("beta");
        // and a cluster-wide token acting in acme is held to acme as well
        assertThat(call("GET", "/api/jobs/" + job, null, ADMIN, "acme").statusCode()).isEqualTo(404);
        assertThat(call("GET", "/api/jobs/" + job, null, ADMIN).statusCode()).isEqualTo(200);
    }

    /** {@code method path} on {@code target} (another tenant's) answers what it answers on an unknown id. */
    void assertNotFoundAsUnknown(String method, String path, String body, String target, String unknown)
            throws Exception {
        HttpResponse<String> theirs = call(method, path.formatted(target), body, ACME);
        HttpResponse<String> none = call(method, path.formatted(unknown), body, ACME);
        assertThat(theirs.statusCode()).as(method + " " + path + ": " + theirs.body()).isEqualTo(404);
        assertThat(none.statusCode()).as(method + " " + path + " unknown: " + none.body()).isEqualTo(404);
        assertThat(theirs.body().replace(target, "ID")).as(method + " " + path)
                .isEqualTo(none.body().replace(unknown, "ID"));
    }

    /** Every job, run and batch row as text: what a refused request must not change. */
    static String snapshot() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT (SELECT string_agg(j::text, '|' ORDER BY j.id) "
                + "FROM jobs j) || (SELECT string_agg(r::text, '|' ORDER BY r.id) FROM runs r) || "
                + "(SELECT string_agg(b::text, '|' ORDER BY b.id) FROM batches b)").mapTo(String.class).one());
    }

    @Test
    void clusterWideRoutesRefuseATenantBoundTokenEvenWithAdmin() throws Exception {
        for (String[] route : new String[][]{{"GET", "/api/nodes"}, {"GET", "/api/tenants"},
                {"PUT", "/api/tenants/acme"}}) {
            String body = route[0].equals("PUT") ? "{\"max_running\": 1}" : null;
            HttpResponse<String> refused = call(route[0], route[1], body, ACME_ADMIN);
            assertThat(refused.statusCode()).as(route[1] + ": " + refused.body()).isEqualTo(403);
            assertThat(body(refused).get("code").asText()).isEqualTo("tenant_forbidden");
        }
        assertThat(text("SELECT count(*)::text FROM tenants WHERE name = CAST(:id AS text)", "acme")).isEqualTo("0");
        // what holds no tenant's data stays open
        assertThat(call("GET", "/api/openapi.json", null, ACME).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/healthz", null, ACME).statusCode()).isEqualTo(200);
    }

    @Test
    void aTenantsQueuesAreItsOwnItsTokenSetsThemAndAnotherTenantsQueueOfTheSameNameIsUntouched() throws Exception {
        HttpResponse<String> set = call("PUT", "/api/queues/mail", "{\"max_running\": 2}", ACME_ADMIN);
        assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
        assertThat(body(set).get("tenant").asText()).isEqualTo("acme");
        HttpResponse<String> paused = call("POST", "/api/queues/mail/pause", null, ACME_ADMIN);
        assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
        assertThat(body(paused).get("paused").asBoolean()).isTrue();

        assertThat(text("SELECT string_agg(tenant || ':' || paused || ':' || max_running, ',') FROM queues "
                + "WHERE name = CAST(:id AS text)", "mail")).isEqualTo("acme:true:2");
        // the cluster-wide token: the default tenant's queue of that name is another, open one
        JsonNode own = body(call("GET", "/api/queues/mail", null, ADMIN));
        assertThat(own.get("tenant").asText()).isEqualTo("default");
        assertThat(own.get("paused").asBoolean()).isFalse();
        JsonNode acmeByHeader = body(call("GET", "/api/queues/mail", null, ADMIN, "acme"));
        assertThat(acmeByHeader.get("paused").asBoolean()).isTrue();
        assertThat(body(call("GET", "/api/queues?tenant=acme", null, ADMIN)).get("items").findValuesAsText("name"))
                .containsExactly("default", "mail");
        // lists: a bound token sees its tenant's queues; the cluster-wide one every tenant's, or one
        body(call("GET", "/api/queues", null, ACME)).get("items")
                .forEach(q -> assertThat(q.get("tenant").asText()).isEqualTo("acme"));
        List<String> all = new ArrayList<>();
        body(call("GET", "/api/queues", null, ADMIN)).get("items")
                .forEach(q -> all.add(q.get("tenant").asText() + "/" + q.get("name").asText()));
        assertThat(all).contains("acme/mail", "default/default");
        List<String> beta = new ArrayList<>();
        body(call("GET", "/api/queues?tenant=beta", null, ADMIN)).get("items")
                .forEach(q -> beta.add(q.get("tenant").asText() + "/" + q.get("name").asText()));
        assertThat(beta).containsExactly("beta/default");

        // a bound token may not name another tenant's queue, and nothing changes
        HttpResponse<String> refused = call("POST", "/api/queues/mail/resume", null, ACME_ADMIN, "beta");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(body(refused).get("code").asText()).isEqualTo("tenant_forbidden");
        HttpResponse<String> other = call("GET", "/api/queues?tenant=beta", null, ACME);
        assertThat(other.statusCode()).isEqualTo(403);
        HttpResponse<String> bad = call("GET", "/api/queues?tenant=Not_Valid", null, ADMIN);
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(422);
        assertThat(body(bad).get("field").asText()).isEqualTo("tenant");
        assertThat(text("SELECT count(*)::text FROM queues WHERE name = CAST(:id AS text)", "mail")).isEqualTo("1");

        call("POST", "/api/queues/mail/resume", null, ACME_ADMIN);
    }

    @Test
    void aTenantsEventStreamShowsItsTenantsEventsOnly() throws Exception {
        URI events = URI.create("http://127.0.0.1:" + APP.getLocalPort() + "/api/events");
        HttpClient sse = HttpClient.newHttpClient();
        try (SseClient acme = SseClient.connect(sse, events, null, Map.of("Authorization", "Bearer " + ACME));
             SseClient viaHeader = SseClient.connect(sse, events, null, Map.of("Authorization", "Bearer " + ADMIN,
                     "X-ForgeFlow-Tenant", "acme"));
             SseClient all = SseClient.connect(sse, events, null, Map.of("Authorization", "Bearer " + ADMIN))) {
            assertThat(acme.status).isEqualTo(200);
            assertThat(viaHeader.status).isEqualTo(200);
            String beta = id(created(call("POST", "/api/jobs", job("beta-evented"), BETA)));
            String mine = id(created(call("POST", "/api/jobs", job("acme-evented"), ACME)));

            List<SseClient.Event> everyone = all.until(e -> mine.equals(e.data().path("job_id").asText()),
                    java.time.Duration.ofSeconds(20));
            assertThat(everyone).as("beta's event was published").anyMatch(e -> beta.equals(jobOf(e)));
            for (SseClient stream : List.of(acme, viaHeader)) {
                List<SseClient.Event> seen = stream.until(e -> mine.equals(jobOf(e)), java.time.Duration.ofSeconds(20));
                assertThat(seen).noneMatch(e -> beta.equals(jobOf(e)));
                assertThat(seen).filteredOn(e -> "run".equals(e.type())).allSatisfy(e ->
                        assertThat(text("SELECT tenant FROM jobs WHERE id = CAST(:id AS uuid)", jobOf(e)))
                                .isEqualTo("acme"));
            }
            String later = id(created(call("POST", "/api/jobs", job("beta-later"), BETA)));
            all.until(e -> later.equals(jobOf(e)), java.time.Duration.ofSeconds(20));
            SseClient.Event leaked = acme.poll(java.time.Duration.ofSeconds(1));
            assertThat(leaked == null ? null : jobOf(leaked)).isNotEqualTo(later);
        }
    }

    static String jobOf(SseClient.Event e) {
        return e.data() == null ? null : e.data().path("job_id").asText(null);
    }

    @Test
    void statsCountTheRequestsTenantsRuns() throws Exception {
        for (int i = 0; i < 3; i++) {
            created(call("POST", "/api/jobs", job("counted"), ADMIN, "stats-a"));
        }
        created(call("POST", "/api/jobs", job("counted"), ADMIN, "stats-b"));

        assertThat(body(call("GET", "/api/stats", null, ADMIN, "stats-a")).get("pending").asLong()).isEqualTo(3);
        assertThat(body(call("GET", "/api/stats?tenant=stats-b", null, ADMIN)).get("pending").asLong()).isEqualTo(1);
        long all = body(call("GET", "/api/stats", null, ADMIN)).get("pending").asLong();
        assertThat(all).isGreaterThanOrEqualTo(4);
        long acme = body(call("GET", "/api/stats", null, ACME)).get("pending").asLong();
        assertThat(acme).isEqualTo(Long.parseLong(text("SELECT count(*)::text FROM runs WHERE tenant = "
                + "CAST(:id AS text) AND status = 'pending'", "acme"))).isLessThan(all);
        assertThat(call("GET", "/api/stats?tenant=stats-a", null, ACME).statusCode()).isEqualTo(403);
    }

    @Test
    void aTenantBoundTokenCannotNameAnotherTenantAndNothingIsStored() throws Exception {
        long before = jobs();
        HttpResponse<String> inBody = call("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"noop\", "
                + "\"payload\": {}, \"tenant\": \"beta\"}", ACME);
        HttpResponse<String> inHeader = call("POST", "/api/jobs", job("y"), ACME, "beta");
        HttpResponse<String> inList = call("GET", "/api/jobs?tenant=beta", null, ACME);
        HttpResponse<String> inBatch = call("POST", "/api/batches", "{\"tenant\": \"beta\", \"jobs\": [" + job("z")
                + "]}", ACME);

        for (HttpResponse<String> refused : List.of(inBody, inHeader, inList, inBatch)) {
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(body(refused).get("code").asText()).isEqualTo("tenant_forbidden");
            assertThat(refused.body()).doesNotContain(ACME);
        }
        assertThat(jobs()).isEqualTo(before);
        // naming its own tenant is fine
        assertThat(call("POST", "/api/jobs", "{\"name\": \"own\", \"executor\": \"noop\", \"payload\": {}, "
                + "\"tenant\": \"acme\"}", ACME).statusCode()).isEqualTo(201);
    }

    @Test
    void badTenantNamesAre422OnTheTenantField() throws Exception {
        long before = jobs();
        for (HttpResponse<String> bad : List.of(
                call("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"noop\", \"payload\": {}, "
                        + "\"tenant\": \"Acme Corp\"}", ADMIN),
                call("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"noop\", \"payload\": {}, "
                        + "\"tenant\": 7}", ADMIN),
                call("POST", "/api/jobs", job("x"), ADMIN, "UPPER"),
                call("GET", "/api/jobs?tenant=" + "a".repeat(64), null, ADMIN),
                call("POST", "/api/jobs", "{\"name\": \"x\", \"executor\": \"noop\", \"payload\": {}, "
                        + "\"tenant\": \"beta\"}", ADMIN, "acme"))) {
            assertThat(bad.statusCode()).as(bad.body()).isEqualTo(422);
            assertThat(body(bad).get("field").asText()).isEqualTo("tenant");
            assertThat(body(bad).get("error").asText()).contains("tenant");
        }
        assertThat(jobs()).isEqualTo(before);
    }

    @Test
    void theSameKeysInTwoTenantsMakeTwoJobsAndReplayWithinOne() throws Exception {
        String keyed = "{\"name\": \"keyed\", \"executor\": \"noop\", \"payload\": {}, \"idempotency_key\": "
                + "\"order-42\"}";
        HttpResponse<String> acme = call("POST", "/api/jobs", keyed, ACME);
        HttpResponse<String> beta = call("POST", "/api/jobs", keyed, BETA);
        HttpResponse<String> acmeAgain = call("POST", "/api/jobs", keyed, ACME);
        HttpResponse<String> viaHeader = call("POST", "/api/jobs", keyed, ADMIN, "beta");

        assertThat(acme.statusCode()).as(acme.body()).isEqualTo(201);
        assertThat(beta.statusCode()).as(beta.body()).isEqualTo(201);
        assertThat(id(body(beta))).isNotEqualTo(id(body(acme)));
        assertThat(acmeAgain.statusCode()).isEqualTo(200);
        assertThat(id(body(acmeAgain))).isEqualTo(id(body(acme)));
        assertThat(viaHeader.statusCode()).isEqualTo(200);
        assertThat(id(body(viaHeader))).isEqualTo(id(body(beta)));
        assertThat(body(beta).get("idempotency_key").asText()).as("shown as given").isEqualTo("order-42");
        assertThat(body(call("GET", "/api/jobs/" + id(body(beta)), null, BETA)).get("idempotency_key").asText())
                .isEqualTo("order-42");

        String unique = "{\"name\": \"sync\", \"executor\": \"noop\", \"payload\": {}, \"unique_key\": \"sync-7\", "
                + "\"concurrency_key\": \"partner\", \"max_concurrent\": 1, "
                + "\"throttle\": {\"key\": \"api\", \"count\": 1, \"per_seconds\": 60}}";
        HttpResponse<String> acmeUnique = call("POST", "/api/jobs", unique, ACME);
        HttpResponse<String> betaUnique = call("POST", "/api/jobs", unique, BETA);
        HttpResponse<String> acmeHeld = call("POST", "/api/jobs", unique, ACME);
        assertThat(acmeUnique.statusCode()).as(acmeUnique.body()).isEqualTo(201);
        assertThat(betaUnique.statusCode()).as(betaUnique.body()).isEqualTo(201);
        assertThat(acmeHeld.statusCode()).as(acmeHeld.body()).isEqualTo(409);
        assertThat(acmeHeld.body()).contains(id(body(acmeUnique))).doesNotContain(id(body(betaUnique)));
        JsonNode shown = body(betaUnique);
        assertThat(shown.get("unique_key").asText()).isEqualTo("sync-7");
        assertThat(shown.get("concurrency_key").asText()).isEqualTo("partner");
        assertThat(shown.get("throttle").get("key").asText()).isEqualTo("api");
        // the engine's keys are apart: beta's runs share no key with acme's
        List<Map<String, Object>> keys = pg.jdbi().withHandle(h -> h.createQuery("SELECT tenant, concurrency_key, "
                        + "unique_key, throttle_key FROM runs WHERE job_id IN (CAST(:a AS uuid), CAST(:b AS uuid))")
                .bind("a", id(body(acmeUnique))).bind("b", id(body(betaUnique))).mapToMap().list());
        assertThat(keys).hasSize(2);
        assertThat(keys.get(0).get("concurrency_key")).isNotEqualTo(keys.get(1).get("concurrency_key"));
        assertThat(keys.get(0).get("unique_key")).isNotEqualTo(keys.get(1).get("unique_key"));
        assertThat(keys.get(0).get("throttle_key")).isNotEqualTo(keys.get(1).get("throttle_key"));

        String batch = "{\"idempotency_key\": \"load-1\", \"jobs\": [" + job("b") + "]}";
        HttpResponse<String> acmeBatch = call("POST", "/api/batches", batch, ACME);
        HttpResponse<String> betaBatch = call("POST", "/api/batches", batch, BETA);
        assertThat(acmeBatch.statusCode()).as(acmeBatch.body()).isEqualTo(201);
        assertThat(betaBatch.statusCode()).as(betaBatch.body()).isEqualTo(201);
        assertThat(body(betaBatch).get("idempotency_key").asText()).isEqualTo("load-1");
        assertThat(call("POST", "/api/batches", batch, BETA).statusCode()).isEqualTo(200);
    }

    @Test
    void aPatchKeepsTheJobsKeysInItsTenant() throws Exception {
        String limited = "{\"name\": \"limited\", \"executor\": \"noop\", \"payload\": {}, \"run_at\": "
                + "\"2099-01-01T00:00:00Z\", \"concurrency_key\": \"k\", \"max_concurrent\": 1}";
        String acme = id(created(call("POST", "/api/jobs", limited, ACME)));
        String beta = id(created(call("POST", "/api/jobs", limited, BETA)));

        HttpResponse<String> patched = call("PATCH", "/api/jobs/" + beta, "{\"concurrency_key\": \"k2\", "
                + "\"throttle\": {\"key\": \"t\", \"count\": 2, \"per_seconds\": 1}}", BETA);

        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        assertThat(body(patched).get("concurrency_key").asText()).isEqualTo("k2");
        assertThat(body(patched).get("throttle").get("key").asText()).isEqualTo("t");
        assertThat(text("SELECT concurrency_key || '/' || (throttle ->> 'key') "
                + "FROM jobs WHERE id = CAST(:id AS uuid)", beta))
                .isEqualTo("beta\u001fk2/beta\u001ft");
        assertThat(text("SELECT concurrency_key FROM runs WHERE job_id = "
                + "CAST(:id AS uuid)", beta)).isEqualTo("beta\u001fk2");
        assertThat(text("SELECT concurrency_key FROM runs WHERE job_id = "
                + "CAST(:id AS uuid)", acme)).isEqualTo("acme\u001fk");
    }

    @Test
    void aParentInAnotherTenantIsUnknownToTheChild() throws Exception {
        String parent = id(created(call("POST", "/api/jobs", job("beta-parent"), BETA)));
        long before = jobs();

        HttpResponse<String> child = call("POST", "/api/jobs", "{\"name\": \"child\", \"executor\": \"noop\", "
                + "\"payload\": {}, \"depends_on\": [\"" + parent + "\"]}", ACME);
        HttpResponse<String> unknownParent = call("POST", "/api/jobs", "{\"name\": \"child\", \"executor\": "
                + "\"noop\", \"payload\": {}, \"depends_on\": [\"" + UUID.randomUUID() + "\"]}", ACME);

        assertThat(child.statusCode()).as(child.body()).isEqualTo(422);
        assertThat(body(child).get("field").asText()).isEqualTo("depends_on");
        assertThat(body(child).get("error").asText()).contains("no job " + parent);
        assertThat(unknownParent.statusCode()).isEqualTo(422);
        assertThat(jobs()).isEqualTo(before);
        assertThat(call("POST", "/api/jobs", "{\"name\": \"child\", \"executor\": \"noop\", \"payload\": {}, "
                + "\"depends_on\": [\"" + parent + "\"]}", BETA).statusCode()).isEqualTo(201);
    }

    @Test
    void runsMadeLaterAreInTheirJobsTenant() throws Exception {
        String cron = id(created(call("POST", "/api/jobs", "{\"name\": \"acme-nightly\", \"executor\": \"noop\", "
                + "\"payload\": {}, \"cron_expr\": \"0 3 * * *\"}", ACME)));

        HttpResponse<String> triggered = call("POST", "/api/jobs/" + cron + "/trigger", null, ACME);
        HttpResponse<String> backfill = call("POST", "/api/jobs/" + cron + "/backfill",
                "{\"from\": \"2026-04-01T00:00:00Z\", \"to\": \"2026-04-03T00:00:00Z\"}", ACME);

        assertThat(triggered.statusCode()).as(triggered.body()).isEqualTo(201);
        assertThat(body(triggered).get("tenant").asText()).isEqualTo("acme");
        assertThat(backfill.statusCode()).as(backfill.body()).isEqualTo(201);
        assertThat(text("SELECT string_agg(DISTINCT tenant, ',') || ':' || count(*) "
                + "FROM runs WHERE job_id = CAST(:id AS uuid)", cron))
                .isEqualTo("acme:3");
    }

    @Test
    void enqueueTakesATenantAndKeepsItsKeysApart() {
        String sql = "SELECT job_id FROM forgeflow.enqueue('sql-keyed', 'noop', idempotency_key => 'tx-1'%s)";
        String plain = pg.jdbi().withHandle(h -> h.createQuery(sql.formatted("")).mapTo(String.class).one());
        String acme = pg.jdbi().withHandle(h -> h.createQuery(sql.formatted(", tenant => 'acme'"))
                .mapTo(String.class).one());
        String again = pg.jdbi().withHandle(h -> h.createQuery(sql.formatted(", tenant => 'acme'"))
                .mapTo(String.class).one());

        assertThat(acme).isNotEqualTo(plain).isEqualTo(again);
        assertThat(text("SELECT j.tenant || '/' || r.tenant FROM jobs j JOIN runs r "
                + "ON r.job_id = j.id WHERE j.id = CAST(:id AS uuid)", acme))
                .isEqualTo("acme/acme");
        Throwable bad = org.assertj.core.api.Assertions.catchThrowable(() -> pg.jdbi().useHandle(h -> h.createQuery(
                sql.formatted(", tenant => 'Not A Tenant'")).mapTo(String.class).one()));
        org.postgresql.util.PSQLException refused = (org.postgresql.util.PSQLException) bad.getCause();
        assertThat(refused.getSQLState()).isEqualTo("22023");
        assertThat(refused.getServerErrorMessage().getColumn()).isEqualTo("tenant");
        assertThat(refused.getServerErrorMessage().getMessage()).startsWith("tenant 'Not A Tenant' is not a tenant name");
    }

    // --- helpers

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

    static JsonNode body(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static JsonNode created(HttpResponse<String> response) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return body(response);
    }

    static String id(JsonNode node) {
        return node.get("id").asText();
    }

    static List<String> ids(HttpResponse<String> list) throws Exception {
        assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        body(list).get("items").forEach(j -> ids.add(j.get("id").asText()));
        return ids;
    }

    /** The one text value of {@code query} with {@code :id} bound. */
    static String text(String query, String id) {
        return pg.jdbi().withHandle(h -> h.createQuery(query).bind("id", id).mapTo(String.class).one());
    }

    static long jobs() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Long.class).one());
    }
}
