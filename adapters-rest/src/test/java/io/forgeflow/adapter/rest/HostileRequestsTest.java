package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed and hostile requests, one table: each is refused with the right status and a JSON error (naming the
 * field where one is at fault), never a stack trace, and changes no job or run. The server requires tokens
 * (rest-auth-test.yml): every case sends the admin token unless it sets its own {@code Authorization} header
 * ({@link #NO_TOKEN}: none at all), so the same table covers the refusals of authentication and scopes.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HostileRequestsTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-auth-test.yml"));

    static final String JSON = "application/json";
    static final String ADMIN = "admin-token-0123456789";
    static final String READ = "read-token-0123456789";
    static final String OPERATE = "operate-token-0123456789";
    static final String SUBMIT = "submit-token-0123456789";
    /** read+operate, configured as sha256:b22fd458... of this token */
    static final String HASHED = "hashed-token-0123456789";
    static final String HASHED_DIGEST = "b22fd458dbe2426bebe59cfafe4c46e013df3efd439e4d91cda767ac3052ddd0";
    /** A case with this header sends no Authorization header at all. */
    static final Map<String, String> NO_TOKEN = Map.of("Authorization", "");
    static final String UNKNOWN_ID = "01900000-0000-7000-8000-000000000000";
    static String existingJob;

    /** One request and what it must get. {@code field} null: the error names no field. */
    record Case(String name, String method, String path, String contentType, byte[] body, boolean chunked,
                Map<String, String> headers, int status, String field) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void seed() {
        RestTestApplication app = APP.getApplication();
        Api.Reply r = new Api(APP.getLocalPort(), ADMIN).post("/api/jobs", "{\"name\": \"seed\", \"executor\": \"shell\", "
                + "\"cron_expr\": \"@hourly\", \"idempotency_key\": \"seed\"}");
        assertThat(r.status()).isIn(200, 201);
        existingJob = r.json().get("id").asText();
        assertThat(app.store.allJobs()).isNotEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isRefusedWithAJsonErrorAndChangesNothing(Case c) throws Exception {
        InMemoryStore store = ((RestTestApplication) APP.getApplication()).store;
        List<Job> jobsBefore = store.allJobs();
        List<Run> runsBefore = store.allRuns();
        List<QueueInfo> queuesBefore = store.queues().list(null);
        List<io.forgeflow.domain.tenant.TenantInfo> tenantsBefore = store.tenants().list();
        Map<String, String> headers = new LinkedHashMap<>(c.headers());
        if (!headers.containsKey("Authorization")) {
            headers.put("Authorization", "Bearer " + ADMIN);
        } else if (headers.get("Authorization").isEmpty()) {
            headers.remove("Authorization");
        }
        if (c.contentType() != null) {
            headers.put("Content-Type", c.contentType());
        }
        String path = c.path().replace("{job}", existingJob);

        RawHttp.Reply r = new RawHttp(APP.getLocalPort()).send(new RawHttp.Request(c.method(), path, headers, c.body(),
                c.chunked()));

        assertThat(r.status()).as("status; body: %s", r.body()).isEqualTo(c.status());
        assertThat(r.header("content-type")).as("content type").startsWith("application/json");
        JsonNode error = Api.JSON.readTree(r.body());
        assertThat(error.isObject()).isTrue();
        assertThat(error.path("error").asText()).as("error message").isNotBlank();
        if (c.field() == null) {
            assertThat(error.has("field")).as("no field expected: %s", r.body()).isFalse();
        } else {
            assertThat(error.path("field").asText()).as("field; body: %s", r.body()).isEqualTo(c.field());
        }
        assertThat(r.body()).as("no stack trace or internals")
                .doesNotContain("\tat ", ".java:", "Exception", "com.fasterxml", "org.glassfish", "org.eclipse",
                        "io.forgeflow", "<html");
        assertThat(r.body()).as("no token echoed").doesNotContain(ADMIN, READ, OPERATE, SUBMIT, HASHED, "x".repeat(100));
        if (c.status() == 401) {
            assertThat(r.header("www-authenticate")).as("WWW-Authenticate").startsWith("Bearer realm=\"forgeflow\"");
        }
        if (c.status() == 403) {
            assertThat(r.header("www-authenticate")).as("WWW-Authenticate").contains("error=\"insufficient_scope\"");
        }
        assertThat(store.allJobs()).as("jobs unchanged").isEqualTo(jobsBefore);
        assertThat(store.allRuns()).as("runs unchanged").isEqualTo(runsBefore);
        assertThat(store.queues().list(null)).as("queues unchanged").isEqualTo(queuesBefore);
        assertThat(store.tenants().list()).as("tenants unchanged").isEqualTo(tenantsBefore);
    }

    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        // ---- wrong JSON types: 422 naming the field ----
        cases.add(job("name is a number", "{\"name\": 5, \"executor\": \"shell\"}", 422, "name"));
        cases.add(job("priority is a string", with("\"priority\": \"high\""), 422, "priority"));
        cases.add(job("priority is a boolean", with("\"priority\": true"), 422, "priority"));
        cases.add(job("priority is a fraction", with("\"priority\": 2.5"), 422, "priority"));
        cases.add(job("max_attempts is an object", with("\"max_attempts\": {}"), 422, "max_attempts"));
        cases.add(job("payload is an array", with("\"payload\": []"), 422, "payload"));
        cases.add(job("payload is a string", with("\"payload\": \"echo hi\""), 422, "payload"));
        cases.add(job("cron_expr is a number", with("\"cron_expr\": 5"), 422, "cron_expr"));
        cases.add(job("run_at is a number", with("\"run_at\": 1767225600"), 422, "run_at"));
        // ---- numbers out of range ----
        cases.add(job("priority 99999999999999999999", with("\"priority\": 99999999999999999999"), 422, "priority"));
        cases.add(job("priority 1e309", with("\"priority\": 1e309"), 422, "priority"));
        cases.add(job("priority -1e309", with("\"priority\": -1e309"), 422, "priority"));
        cases.add(job("a payload number 1e309", with("\"payload\": {\"n\": 1e309}"), 422, "payload.n"));
        cases.add(job("priority with 2000 digits", with("\"priority\": " + "9".repeat(2000)), 422, "priority"));
        cases.add(job("priority 0", with("\"priority\": 0"), 422, "priority"));
        cases.add(job("priority 10", with("\"priority\": 10"), 422, "priority"));
        cases.add(job("max_attempts 0", with("\"max_attempts\": 0"), 422, "max_attempts"));
        cases.add(job("timeout_seconds -1", with("\"timeout_seconds\": -1"), 422, "timeout_seconds"));
        cases.add(job("timeout_seconds 86401", with("\"timeout_seconds\": 86401"), 422, "timeout_seconds"));
        // ---- unknown and read-only fields ----
        cases.add(job("unknown field cron", with("\"cron\": \"* * * * *\""), 422, "cron"));
        cases.add(job("unknown field camelCase", with("\"maxAttempts\": 3"), 422, "maxAttempts"));
        cases.add(job("unknown unicode field", with("\"ñame\": \"x\""), 422, "ñame"));
        cases.add(job("read-only field status", with("\"status\": \"active\""), 422, "status"));
        cases.add(job("read-only field id", with("\"id\": \"" + UNKNOWN_ID + "\""), 422, "id"));
        cases.add(job("an unknown 10k-character key", with("\"" + "k".repeat(10_000) + "\": 1"), 422,
                "k".repeat(60) + "…"));
        // ---- values the domain refuses ----
        cases.add(job("run_at not a timestamp", with("\"run_at\": \"tomorrow\""), 422, "run_at"));
        cases.add(job("run_at month 13", with("\"run_at\": \"2026-13-01T00:00:00Z\""), 422, "run_at"));
        cases.add(job("run_at without offset", with("\"run_at\": \"2026-07-01T09:30:00\""), 422, "run_at"));
        cases.add(job("run_at in year 10000", with("\"run_at\": \"+10000-01-01T00:00:00Z\""), 422, "run_at"));
        cases.add(job("cron_expr and run_at", with("\"cron_expr\": \"@daily\", \"run_at\": \"2026-07-01T09:30:00Z\""), 422, "run_at"));
        cases.add(job("cron_expr not cron", with("\"cron_expr\": \"every day\""), 422, "cron_expr"));
        cases.add(job("cron_expr never fires", with("\"cron_expr\": \"0 0 30 2 *\""), 422, "cron_expr"));
        cases.add(job("cron_expr blank", with("\"cron_expr\": \"   \""), 422, "cron_expr"));
        cases.add(job("timezone unknown", with("\"timezone\": \"Mars/Olympus_Mons\""), 422, "timezone"));
        cases.add(job("catch_up unknown", with("\"catch_up\": \"always\""), 422, "catch_up"));
        cases.add(job("executor unknown", "{\"name\": \"n\", \"executor\": \"ftp\"}", 422, "executor"));
        cases.add(job("payload refused by the executor", with("\"payload\": {\"bad\": 1}"), 422, "payload.bad"));
        cases.add(job("name missing", "{\"executor\": \"shell\"}", 422, "name"));
        cases.add(job("name empty", "{\"name\": \"\", \"executor\": \"shell\"}", 422, "name"));
        cases.add(job("name 201 characters", "{\"name\": \"" + "x".repeat(201) + "\", \"executor\": \"shell\"}", 422, "name"));
        cases.add(job("idempotency_key 201 characters", with("\"idempotency_key\": \"" + "k".repeat(201) + "\""), 422,
                "idempotency_key"));
        // ---- hostile text ----
        cases.add(job("NUL inside name", "{\"name\": \"a\\u0000b\", \"executor\": \"shell\"}", 422, "name"));
        cases.add(job("NUL inside a payload string", with("\"payload\": {\"command\": \"rm\\u0000 -rf\"}"), 422,
                "payload.command"));
        cases.add(job("NUL inside a payload key", with("\"payload\": {\"a\\u0000\": 1}"), 422, "payload"));
        cases.add(job("unpaired surrogate in name", "{\"name\": \"\\ud800\", \"executor\": \"shell\"}", 422, "name"));
        cases.add(job("unpaired surrogate in a payload value", with("\"payload\": {\"k\": [\"\\udc00\"]}"), 422,
                "payload.k[0]"));
        cases.add(job("unpaired surrogate in a key", with("\"payload\": {\"\\udc00\": 1}"), 400, null));
        cases.add(job("payload nested 40 deep", with("\"payload\": " + nested(40)), 422, "payload"));
        cases.add(job("payload nested 5000 deep", with("\"payload\": " + nested(5000)), 422, "payload"));
        // ---- malformed documents: 400 ----
        cases.add(job("truncated JSON", "{\"name\": ", 400, null));
        cases.add(job("single quotes", "{'name': 'x', 'executor': 'shell'}", 400, null));
        cases.add(job("trailing comma", "{\"name\": \"x\", \"executor\": \"shell\",}", 400, null));
        cases.add(job("comment", "{\"name\": \"x\" /* hi */, \"executor\": \"shell\"}", 400, null));
        cases.add(job("NaN", with("\"priority\": NaN"), 400, null));
        cases.add(job("two documents", "{\"name\": \"x\", \"executor\": \"shell\"} {}", 400, null));
        cases.add(job("duplicate key", "{\"name\": \"a\", \"name\": \"b\", \"executor\": \"shell\"}", 400, "name"));
        cases.add(job("duplicate key in payload", with("\"payload\": {\"command\": \"a\", \"command\": \"b\"}"), 400,
                "payload.command"));
        cases.add(job("body is an array", "[]", 400, null));
        cases.add(job("body is a string", "\"x\"", 400, null));
        cases.add(job("body is null", "null", 400, null));
        cases.add(job("body is a number", "42", 400, null));
        cases.add(job("body is empty", "", 400, null));
        cases.add(job("body is whitespace", " \r\n\t ", 400, null));
        cases.add(new Case("no body at all", "POST", "/api/jobs", JSON, null, false, Map.of(), 400, null));
        cases.add(new Case("invalid UTF-8", "POST", "/api/jobs", JSON, bytes("{\"name\": \"", new byte[]{(byte) 0xff,
                (byte) 0xfe}, "\", \"executor\": \"shell\"}"), false, Map.of(), 400, null));
        // ---- sizes and content types ----
        cases.add(new Case("2 MiB body", "POST", "/api/jobs", JSON, padded(2 << 20), false, Map.of(), 413, null));
        cases.add(new Case("2 MiB chunked body", "POST", "/api/jobs", JSON, padded(2 << 20), true, Map.of(), 413, null));
        cases.add(new Case("1 MiB + 1 byte", "POST", "/api/jobs", JSON, padded((1 << 20) + 1), false, Map.of(), 413, null));
        cases.add(new Case("2 MiB chunked without content type", "POST", "/api/jobs", null, padded(2 << 20), true,
                Map.of(), 413, null));
        cases.add(new Case("2 MiB chunked to a control", "POST", "/api/jobs/{job}/pause", JSON, padded(2 << 20), false,
                Map.of(), 413, null));
        cases.add(job("text/plain", "text/plain", "{\"name\": \"x\", \"executor\": \"shell\"}", 415));
        cases.add(job("application/xml", "application/xml", "<job/>", 415));
        cases.add(job("multipart", "multipart/form-data; boundary=x", "--x--", 415));
        cases.add(job("garbage content type", ";;;", "{}", 415));
        cases.add(new Case("Accept text/html only", "POST", "/api/jobs", JSON, utf8("{\"name\": \"x\", \"executor\": "
                + "\"shell\"}"), false, Map.of("Accept", "text/html"), 406, null));
        // ---- query parameters: 400 naming the parameter ----
        cases.add(get("limit not a number", "/api/jobs?limit=abc", 400, "limit"));
        cases.add(get("limit 0", "/api/jobs?limit=0", 400, "limit"));
        cases.add(get("limit negative", "/api/runs?limit=-5", 400, "limit"));
        cases.add(get("limit 501", "/api/jobs?limit=501", 400, "limit"));
        cases.add(get("limit huge", "/api/runs?limit=99999999999999999999", 400, "limit"));
        cases.add(get("limit fraction", "/api/jobs?limit=1.5", 400, "limit"));
        cases.add(get("limit given twice", "/api/jobs?limit=1&limit=2", 400, "limit"));
        cases.add(get("job status unknown", "/api/jobs?status=bogus", 400, "status"));
        cases.add(get("run status in capitals", "/api/runs?status=DEAD", 400, "status"));
        cases.add(get("job_id malformed", "/api/runs?job_id=nope", 400, "job_id"));
        cases.add(get("job_id with SQL", "/api/runs?job_id=1%27%20OR%20%271%27%3D%271", 400, "job_id"));
        cases.add(get("cursor garbage", "/api/jobs?cursor=garbage!", 400, "cursor"));
        cases.add(get("unknown parameter", "/api/runs?statuz=dead", 400, "statuz"));
        // ---- paths ----
        cases.add(get("dot-dot with encoded slash", "/api/jobs/..%2f", 400, null));
        cases.add(get("encoded NUL id", "/api/jobs/%00", 400, null));
        cases.add(get("bad percent-encoding", "/api/jobs/%zz", 400, null));
        cases.add(get("overlong UTF-8", "/api/jobs/%C0%AF", 400, null));
        cases.add(get("malformed id", "/api/jobs/not-an-id", 404, null));
        cases.add(get("unknown job id", "/api/jobs/" + UNKNOWN_ID, 404, null));
        cases.add(get("unknown run id", "/api/runs/" + UNKNOWN_ID, 404, null));
        cases.add(get("a 5000-character id", "/api/runs/" + "a".repeat(5000), 404, null));
        cases.add(post("pause an unknown job", "/api/jobs/" + UNKNOWN_ID + "/pause", 404));
        cases.add(post("trigger a malformed id", "/api/jobs/x'--/trigger", 404));
        cases.add(post("requeue an unknown run", "/api/runs/" + UNKNOWN_ID + "/requeue", 404));
        cases.add(get("unknown route", "/api/jobz", 404, null));
        cases.add(get("dot-dot out of the API", "/api/jobs/../../etc/passwd", 404, null));
        cases.add(new Case("PUT on jobs", "PUT", "/api/jobs", JSON, utf8("{}"), false, Map.of(), 405, null));
        cases.add(new Case("DELETE a run", "DELETE", "/api/runs/0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b", null, null, false, Map.of(), 405, null));
        cases.add(new Case("TRACE", "TRACE", "/api/jobs", null, null, false, Map.of(), 405, null));
        // ---- queues: bodies and names ----
        cases.add(queue("queue body is an array", "[]", 400, null));
        cases.add(queue("queue body is empty", "", 400, null));
        cases.add(queue("queue body truncated", "{\"max_running\": ", 400, null));
        cases.add(queue("queue unknown field", "{\"concurrency\": 2}", 422, "concurrency"));
        cases.add(queue("queue max_running a string", "{\"max_running\": \"2\"}", 422, "max_running"));
        cases.add(queue("queue max_running 0", "{\"max_running\": 0}", 422, "max_running"));
        cases.add(queue("queue max_running 10^20", "{\"max_running\": 99999999999999999999}", 422, "max_running"));
        cases.add(queue("queue rate_limit a string", "{\"rate_limit\": \"10/s\"}", 422, "rate_limit"));
        cases.add(queue("queue rate_limit unknown key", "{\"rate_limit\": {\"count\": 1, \"per_seconds\": 1, "
                + "\"burst\": 2}}", 422, "rate_limit.burst"));
        cases.add(queue("queue rate_limit nested 5000 deep", "{\"rate_limit\": " + nested(5000) + "}", 422,
                "rate_limit"));
        cases.add(new Case("queue body text/plain", "PUT", "/api/queues/reports", "text/plain",
                utf8("{\"max_running\": 2}"), false, Map.of(), 415, null));
        cases.add(new Case("queue 2 MiB body", "PUT", "/api/queues/reports", JSON, padded(2 << 20), false, Map.of(),
                413, null));
        cases.add(get("queue name with a space", "/api/queues/a%20b", 422, "name"));
        cases.add(get("queue name 5000 characters", "/api/queues/" + "q".repeat(5000), 422, "name"));
        cases.add(new Case("pause a queue named with unicode", "POST", "/api/queues/z%C3%BCrich/pause", null, null,
                false, Map.of(), 422, "name"));
        cases.add(new Case("configure a queue named with a quote", "PUT", "/api/queues/a'--", JSON,
                utf8("{\"max_running\": 2}"), false, Map.of(), 422, "name"));
        cases.add(get("queue name encoded NUL", "/api/queues/%00", 400, null));
        cases.add(get("queue name with an encoded slash", "/api/queues/a%2Fb", 400, null));
        cases.add(get("queue name overlong UTF-8", "/api/queues/%C0%AF", 400, null));
        cases.add(new Case("DELETE a queue", "DELETE", "/api/queues/reports", null, null, false, Map.of(), 405, null));

        // ---- tenants: bodies and names ----
        cases.add(tenant("tenant body is an array", "[]", 400, null));
        cases.add(tenant("tenant body is empty", "", 400, null));
        cases.add(tenant("tenant body truncated", "{\"weight\": ", 400, null));
        cases.add(tenant("tenant unknown field", "{\"share\": 2}", 422, "share"));
        cases.add(tenant("tenant weight a string", "{\"weight\": \"2\"}", 422, "weight"));
        cases.add(tenant("tenant weight 0", "{\"weight\": 0}", 422, "weight"));
        cases.add(tenant("tenant weight 1001", "{\"weight\": 1001}", 422, "weight"));
        cases.add(tenant("tenant weight 10^20", "{\"weight\": 99999999999999999999}", 422, "weight"));
        cases.add(tenant("tenant weight -1e309", "{\"weight\": -1e309}", 422, "weight"));
        cases.add(tenant("tenant max_running 0", "{\"max_running\": 0}", 422, "max_running"));
        cases.add(tenant("tenant rate_limit a string", "{\"rate_limit\": \"10/s\"}", 422, "rate_limit"));
        cases.add(tenant("tenant rate_limit unknown key", "{\"rate_limit\": {\"count\": 1, \"per_seconds\": 1, "
                + "\"burst\": 2}}", 422, "rate_limit.burst"));
        cases.add(tenant("tenant rate_limit nested 5000 deep", "{\"rate_limit\": " + nested(5000) + "}", 422,
                "rate_limit"));
        cases.add(new Case("tenant body text/plain", "PUT", "/api/tenants/acme", "text/plain",
                utf8("{\"weight\": 2}"), false, Map.of(), 415, null));
        cases.add(new Case("tenant 2 MiB body", "PUT", "/api/tenants/acme", JSON, padded(2 << 20), false, Map.of(),
                413, null));
        cases.add(get("tenant name with a space", "/api/tenants/a%20b", 422, "name"));
        cases.add(get("tenant name in upper case", "/api/tenants/Acme", 422, "name"));
        cases.add(get("tenant name 5000 characters", "/api/tenants/" + "t".repeat(5000), 422, "name"));
        cases.add(new Case("configure a tenant named with unicode", "PUT", "/api/tenants/z%C3%BCrich", JSON,
                utf8("{\"weight\": 2}"), false, Map.of(), 422, "name"));
        cases.add(new Case("configure a tenant named with a quote", "PUT", "/api/tenants/a'--", JSON,
                utf8("{\"weight\": 2}"), false, Map.of(), 422, "name"));
        cases.add(get("tenant name encoded NUL", "/api/tenants/%00", 400, null));
        cases.add(get("tenant name with an encoded slash", "/api/tenants/a%2Fb", 400, null));
        cases.add(new Case("DELETE a tenant", "DELETE", "/api/tenants/acme", null, null, false, Map.of(), 405, null));
        // ---- broken HTTP, refused by Jetty before any filter ----
        cases.add(new Case("Content-Length not a number", "POST", "/api/jobs", JSON, null, false,
                Map.of("Content-Length", "abc"), 400, null));
        cases.add(new Case("a 20 KB header", "GET", "/api/jobs", null, null, false, Map.of("X-Big", "b".repeat(20_000)),
                431, null));
        cases.add(new Case("GET a control", "GET", "/api/jobs/{job}/pause", null, null, false, Map.of(), 405, null));
        // ---- authentication: no token, a wrong one, a malformed header: 401 ----
        String valid = "{\"name\": \"n\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo pwned\"}}";
        cases.add(as("no token: list jobs", "GET", "/api/jobs", null, NO_TOKEN, 401));
        cases.add(as("no token: read a job", "GET", "/api/jobs/{job}", null, NO_TOKEN, 401));
        cases.add(as("no token: list runs", "GET", "/api/runs", null, NO_TOKEN, 401));
        cases.add(as("no token: stats", "GET", "/api/stats", null, NO_TOKEN, 401));
        cases.add(as("no token: nodes", "GET", "/api/nodes", null, NO_TOKEN, 401));
        cases.add(as("no token: submit a job", "POST", "/api/jobs", valid, NO_TOKEN, 401));
        cases.add(as("no token: pause", "POST", "/api/jobs/{job}/pause", null, NO_TOKEN, 401));
        cases.add(as("no token: trigger", "POST", "/api/jobs/{job}/trigger", null, NO_TOKEN, 401));
        cases.add(as("no token: cancel a job", "POST", "/api/jobs/{job}/cancel", null, NO_TOKEN, 401));
        cases.add(as("no token: requeue a run", "POST", "/api/runs/" + UNKNOWN_ID + "/requeue", null, NO_TOKEN, 401));
        cases.add(as("no token: an unknown route under /api", "GET", "/api/jobz", null, NO_TOKEN, 401));
        cases.add(as("no token: PUT", "PUT", "/api/jobs", "{}", NO_TOKEN, 401));
        cases.add(as("wrong token: list jobs", "GET", "/api/jobs", null, bearer("not-a-token"), 401));
        cases.add(as("wrong token: submit", "POST", "/api/jobs", valid, bearer("not-a-token"), 401));
        cases.add(as("wrong token: trigger", "POST", "/api/jobs/{job}/trigger", null, bearer("wrong"), 401));
        cases.add(as("the admin token with a character more", "POST", "/api/jobs", valid, bearer(ADMIN + "x"), 401));
        cases.add(as("the admin token less its last character", "POST", "/api/jobs", valid,
                bearer(ADMIN.substring(0, ADMIN.length() - 1)), 401));
        cases.add(as("the admin token in upper case", "GET", "/api/jobs", null, bearer(ADMIN.toUpperCase()), 401));
        cases.add(as("the scope and token as configured", "GET", "/api/jobs", null, bearer("admin:" + ADMIN), 401));
        cases.add(as("the sha256 digest instead of the token", "GET", "/api/jobs", null, bearer(HASHED_DIGEST), 401));
        cases.add(as("sha256:digest instead of the token", "GET", "/api/jobs", null,
                bearer("sha256:" + HASHED_DIGEST), 401));
        cases.add(as("Bearer without a token", "GET", "/api/jobs", null, Map.of("Authorization", "Bearer"), 401));
        cases.add(as("Bearer and spaces", "GET", "/api/jobs", null, Map.of("Authorization", "Bearer    "), 401));
        cases.add(as("the token without the Bearer scheme", "GET", "/api/jobs", null, Map.of("Authorization", ADMIN), 401));
        cases.add(as("Basic credentials", "POST", "/api/jobs", valid,
                Map.of("Authorization", "Basic YWRtaW46YWRtaW4tdG9rZW4tMDEyMzQ1Njc4OQ=="), 401));
        cases.add(as("Token scheme", "GET", "/api/jobs", null, Map.of("Authorization", "Token " + ADMIN), 401));
        cases.add(as("two Authorization headers", "GET", "/api/jobs", null,
                Map.of("Authorization", "Bearer " + ADMIN, "authorization", "Bearer wrong"), 401));
        cases.add(as("admin token in the query string", "GET", "/api/jobs?access_token=" + ADMIN, null, NO_TOKEN, 401));
        cases.add(as("admin token in the query string of a submit", "POST", "/api/jobs?access_token=" + ADMIN, valid,
                NO_TOKEN, 401));
        cases.add(as("admin token as ?token=", "POST", "/api/jobs/{job}/pause?token=" + ADMIN, null, NO_TOKEN, 401));
        cases.add(as("admin token in a cookie", "GET", "/api/jobs", null, Map.of("Authorization", "",
                "Cookie", "token=" + ADMIN), 401));
        cases.add(as("admin token in X-Api-Key", "GET", "/api/jobs", null, Map.of("Authorization", "",
                "X-Api-Key", ADMIN), 401));
        cases.add(as("a 6000-character token", "GET", "/api/jobs", null, bearer("x".repeat(6000)), 401));
        cases.add(as("a 6000-character token on a submit", "POST", "/api/jobs", valid, bearer("x".repeat(6000)), 401));
        cases.add(as("a 20 KB Authorization header", "GET", "/api/jobs", null, bearer("x".repeat(20_000)), 431));
        // ---- scopes: a valid token without the scope the route needs: 403 ----
        cases.add(as("read token submits", "POST", "/api/jobs", valid, bearer(READ), 403));
        cases.add(as("read token pauses", "POST", "/api/jobs/{job}/pause", null, bearer(READ), 403));
        cases.add(as("read token resumes", "POST", "/api/jobs/{job}/resume", null, bearer(READ), 403));
        cases.add(as("read token cancels a job", "POST", "/api/jobs/{job}/cancel", null, bearer(READ), 403));
        cases.add(as("read token triggers", "POST", "/api/jobs/{job}/trigger", null, bearer(READ), 403));
        cases.add(as("read token requeues", "POST", "/api/runs/" + UNKNOWN_ID + "/requeue", null, bearer(READ), 403));
        cases.add(as("read token cancels a run", "POST", "/api/runs/" + UNKNOWN_ID + "/cancel", null, bearer(READ), 403));
        cases.add(as("read token PUTs", "PUT", "/api/jobs", "{}", bearer(READ), 403));
        cases.add(as("read token DELETEs", "DELETE", "/api/jobs/{job}", null, bearer(READ), 403));
        cases.add(as("operate token submits", "POST", "/api/jobs", valid, bearer(OPERATE), 403));
        cases.add(as("operate token lists jobs", "GET", "/api/jobs", null, bearer(OPERATE), 403));
        cases.add(as("operate token reads stats", "GET", "/api/stats", null, bearer(OPERATE), 403));
        cases.add(as("submit token pauses", "POST", "/api/jobs/{job}/pause", null, bearer(SUBMIT), 403));
        cases.add(as("submit token triggers", "POST", "/api/jobs/{job}/trigger", null, bearer(SUBMIT), 403));
        cases.add(as("submit token requeues", "POST", "/api/runs/" + UNKNOWN_ID + "/requeue", null, bearer(SUBMIT), 403));
        cases.add(as("submit token lists runs", "GET", "/api/runs", null, bearer(SUBMIT), 403));
        cases.add(as("submit token reads a job", "GET", "/api/jobs/{job}", null, bearer(SUBMIT), 403));
        cases.add(as("hashed read+operate token submits", "POST", "/api/jobs", valid, bearer(HASHED), 403));
        cases.add(as("hashed read+operate token on an unknown POST", "POST", "/api/jobs/{job}/explode", null,
                bearer(HASHED), 403));
        cases.add(as("no token: list queues", "GET", "/api/queues", null, NO_TOKEN, 401));
        cases.add(as("no token: configure a queue", "PUT", "/api/queues/reports", "{\"max_running\": 1}", NO_TOKEN,
                401));
        cases.add(as("no token: pause a queue", "POST", "/api/queues/reports/pause", null, NO_TOKEN, 401));
        cases.add(as("read token configures a queue", "PUT", "/api/queues/reports", "{\"max_running\": 1}",
                bearer(READ), 403));
        cases.add(as("read token pauses a queue", "POST", "/api/queues/reports/pause", null, bearer(READ), 403));
        cases.add(as("submit token resumes a queue", "POST", "/api/queues/reports/resume", null, bearer(SUBMIT), 403));
        cases.add(as("submit token configures a queue", "PUT", "/api/queues/reports", "{}", bearer(SUBMIT), 403));
        cases.add(as("operate token lists queues", "GET", "/api/queues", null, bearer(OPERATE), 403));
        cases.add(as("operate token PUTs the queue list", "PUT", "/api/queues", "{}", bearer(OPERATE), 403));
        cases.add(as("operate token on an unknown queue action", "POST", "/api/queues/reports/drain", null,
                bearer(OPERATE), 403));
        cases.add(as("no token: list tenants", "GET", "/api/tenants", null, NO_TOKEN, 401));
        cases.add(as("no token: configure a tenant", "PUT", "/api/tenants/acme", "{\"weight\": 2}", NO_TOKEN, 401));
        cases.add(as("read token configures a tenant", "PUT", "/api/tenants/acme", "{\"weight\": 2}", bearer(READ),
                403));
        cases.add(as("submit token configures a tenant", "PUT", "/api/tenants/acme", "{}", bearer(SUBMIT), 403));
        cases.add(as("operate token configures a tenant: weights need admin", "PUT", "/api/tenants/acme",
                "{\"weight\": 2}", bearer(OPERATE), 403));
        cases.add(as("hashed read+operate token configures a tenant", "PUT", "/api/tenants/acme", "{\"weight\": 2}",
                bearer(HASHED), 403));
        cases.add(as("operate token lists tenants", "GET", "/api/tenants", null, bearer(OPERATE), 403));
        // ---- what an authorised token still cannot do ----
        cases.add(as("hashed read+operate token pauses an unknown job", "POST", "/api/jobs/" + UNKNOWN_ID + "/pause",
                null, bearer(HASHED), 404));
        cases.add(as("operate token triggers a malformed id", "POST", "/api/jobs/x'--/trigger", null, bearer(OPERATE), 404));
        cases.add(as("submit token sends a bad field", "POST", "/api/jobs", "{\"name\": 5, \"executor\": \"shell\"}",
                bearer(SUBMIT), 422, "name"));
        cases.add(as("read token with a bad query", "GET", "/api/runs?limit=0", null, bearer(READ), 400, "limit"));
        cases.add(as("operate token sends a bad queue limit", "PUT", "/api/queues/reports", "{\"max_running\": -1}",
                bearer(OPERATE), 422, "max_running"));
        cases.add(as("hashed read+operate token reads a malformed queue name", "GET", "/api/queues/-x", null,
                bearer(HASHED), 422, "name"));
        cases.add(as("hashed read+operate token reads a malformed tenant name", "GET", "/api/tenants/a%20b", null,
                bearer(HASHED), 422, "name"));
        return cases;
    }

    // ---- table helpers ----

    /** A request with these headers (the Authorization header among them) and, when not null, a JSON body. */
    private static Case as(String name, String method, String path, String body, Map<String, String> headers, int status) {
        return as(name, method, path, body, headers, status, null);
    }

    private static Case as(String name, String method, String path, String body, Map<String, String> headers, int status,
                           String field) {
        return new Case("auth: " + name, method, path, body == null ? null : JSON, body == null ? null : utf8(body),
                false, headers, status, field);
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static final String BASE = "\"name\": \"n\", \"executor\": \"shell\"";

    private static String with(String fields) {
        return "{" + BASE + ", " + fields + "}";
    }

    private static Case job(String name, String body, int status, String field) {
        return new Case(name, "POST", "/api/jobs", JSON, utf8(body), false, Map.of(), status, field);
    }

    private static Case job(String name, String contentType, String body, int status) {
        return new Case(name, "POST", "/api/jobs", contentType, utf8(body), false, Map.of(), status, null);
    }

    private static Case queue(String name, String body, int status, String field) {
        return new Case(name, "PUT", "/api/queues/reports", JSON, utf8(body), false, Map.of(), status, field);
    }

    private static Case tenant(String name, String body, int status, String field) {
        return new Case(name, "PUT", "/api/tenants/acme", JSON, utf8(body), false, Map.of(), status, field);
    }

    private static Case get(String name, String path, int status, String field) {
        return new Case(name, "GET", path, null, null, false, Map.of(), status, field);
    }

    private static Case post(String name, String path, int status) {
        return new Case(name, "POST", path, null, null, false, Map.of(), status, null);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String before, byte[] middle, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(utf8(before));
        out.writeBytes(middle);
        out.writeBytes(utf8(after));
        return out.toByteArray();
    }

    /** A valid job whose name is padded with spaces to exactly {@code size} bytes. */
    private static byte[] padded(int size) {
        String head = "{" + BASE + ", \"payload\": {\"pad\": \"";
        String tail = "\"}}";
        return utf8(head + " ".repeat(size - head.length() - tail.length()) + tail);
    }

    private static String nested(int depth) {
        return "{\"a\": ".repeat(depth) + "1" + "}".repeat(depth);
    }
}
