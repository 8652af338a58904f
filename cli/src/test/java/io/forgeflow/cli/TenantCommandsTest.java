package io.forgeflow.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants (issue 42) on the command line, against an HTTP server on loopback answering API.md's shapes: --tenant and
 * $FORGEFLOW_TENANT as the X-ForgeFlow-Tenant header, the TENANT column of the lists (only when a row is not in
 * {@code default}), and the tenant line of jobs get / runs get.
 */
class TenantCommandsTest {
    static final String JOB = """
            {"id": "%s", "name": "report", "executor": "shell", "payload": {"command": "echo d"}, "cron_expr": null,
             "run_at": null, "timezone": "UTC", "priority": 5, "max_attempts": 3, "timeout_seconds": 300,
             "catch_up": "skip", "idempotency_key": null, "status": "active", "next_run_at": null,
             "created_at": "2026-12-02T07:00:00Z", "updated_at": "2026-12-02T07:00:00Z", "queue": "default",
             "overlap": "allow", "labels": {}%s}""";
    static final String RUN = """
            {"id": "%s", "job_id": "job_1", "status": "pending", "attempt": 0, "max_attempts": 3, "priority": 5,
             "scheduled_for": "2026-12-02T07:00:00Z", "output": ""%s}""";

    HttpServer server;
    final List<Map<String, String>> requests = new CopyOnWriteArrayList<>(); // method, uri, body, tenant
    final Map<String, String[]> answers = new ConcurrentHashMap<>(); // "METHOD path" -> status, body
    final ObjectMapper json = new ObjectMapper();

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Map<String, String> request = new HashMap<>();
            request.put("method", exchange.getRequestMethod());
            request.put("uri", exchange.getRequestURI().toString());
            request.put("body", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String tenant = exchange.getRequestHeaders().getFirst("X-ForgeFlow-Tenant");
            request.put("tenant", tenant == null ? "(none)" : tenant);
            requests.add(request);
            String key = exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath();
            String[] answer = answers.getOrDefault(key, new String[]{"404", "{\"error\": \"no route " + key + "\"}"});
            byte[] bytes = answer[1].getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(Integer.parseInt(answer[0]), bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    Result cli(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> all = new HashMap<>(env);
        all.put("FORGEFLOW_SERVER", "http://127.0.0.1:" + server.getAddress().getPort());
        Terminal terminal = new Terminal(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), all);
        int code = ForgeFlowCli.run(terminal, args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Result cli(String... args) {
        return cli(Map.of(), args);
    }

    static String page(String... items) {
        return "{\"items\": [" + String.join(", ", items) + "], \"next_cursor\": null, \"has_more\": false}";
    }

    static String tenant(String name) {
        return ", \"tenant\": \"" + name + "\"";
    }

    @Test
    void tenantOptionOrVariableIsSentAsTheHeaderAndTheOptionWins() {
        answers.put("GET /api/jobs", new String[]{"200", page()});

        assertThat(cli("jobs", "list", "--tenant", "acme").code()).isZero();
        assertThat(cli(Map.of("FORGEFLOW_TENANT", "globex"), "jobs", "list").code()).isZero();
        assertThat(cli(Map.of("FORGEFLOW_TENANT", "globex"), "jobs", "list", "--tenant", "acme").code()).isZero();
        assertThat(cli("jobs", "list").code()).isZero();

        assertThat(requests).extracting(r -> r.get("tenant")).containsExactly("acme", "globex", "acme", "(none)");
        assertThat(requests).extracting(r -> r.get("uri")).containsOnly("/api/jobs");
    }

    @Test
    void jobsSubmitWithTenantSendsTheHeaderAndPrintsTheJobsTenant() throws Exception {
        answers.put("POST /api/jobs", new String[]{"201", JOB.formatted("job_1", tenant("acme"))});

        Result r = cli("jobs", "submit", "--name", "report", "--command", "echo d", "--tenant", "acme");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(requests.get(0).get("tenant")).isEqualTo("acme");
        assertThat(json.readTree(requests.get(0).get("body")).has("tenant")).isFalse();
        assertThat(r.out()).containsPattern("(?m)^tenant +acme$");
    }

    @Test
    void jobsListOfTheDefaultTenantOnlyPrintsAsBeforeTenants() {
        answers.put("GET /api/jobs", new String[]{"200", page(JOB.formatted("job_1", ""), JOB.formatted("job_2", ""))});
        Result before = cli("jobs", "list");
        answers.put("GET /api/jobs", new String[]{"200", page(JOB.formatted("job_1", tenant("default")),
                JOB.formatted("job_2", tenant("default")))});
        Result now = cli("jobs", "list");

        assertThat(before.code()).isZero();
        assertThat(now.out()).isEqualTo(before.out()).doesNotContain("TENANT")
                .startsWith("ID     NAME    EXECUTOR  SCHEDULE   STATUS  NEXT RUN  PRI\n");
    }

    @Test
    void jobsListShowsATenantColumnWhenAnyJobIsInAnotherTenant() {
        answers.put("GET /api/jobs", new String[]{"200", page(JOB.formatted("job_1", tenant("default")),
                JOB.formatted("job_2", tenant("acme")))});

        Result r = cli("jobs", "list");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("ID     TENANT   NAME    EXECUTOR  SCHEDULE   STATUS  NEXT RUN  PRI\n")
                .containsPattern("(?m)^job_1  default  report  shell ")
                .containsPattern("(?m)^job_2  acme     report  shell ");
    }

    @Test
    void runsListShowsATenantColumnOnlyWhenARunIsInAnotherTenant() {
        answers.put("GET /api/jobs/job_1", new String[]{"200", JOB.formatted("job_1", "")});
        answers.put("GET /api/runs", new String[]{"200", page(RUN.formatted("run_1", tenant("default")))});
        Result single = cli("runs", "list");
        answers.put("GET /api/runs", new String[]{"200", page(RUN.formatted("run_1", "")
                .replace("\"output\": \"\"", "\"output\": \"\"" + tenant("globex")), RUN.formatted("run_2", ""))});
        Result mixed = cli("runs", "list", "--tenant", "globex");

        assertThat(single.code()).as(single.toString()).isZero();
        assertThat(single.out()).startsWith("ID     JOB     STATUS   ATTEMPT  SCHEDULED").doesNotContain("TENANT");
        assertThat(mixed.code()).as(mixed.toString()).isZero();
        assertThat(mixed.out()).startsWith("ID     TENANT  JOB     STATUS   ATTEMPT  SCHEDULED")
                .containsPattern("(?m)^run_1  globex  report  pending ")
                .containsPattern("(?m)^run_2  -       report  pending ");
        assertThat(requests.get(requests.size() - 1).get("tenant")).isEqualTo("globex");
    }

    static final String QUEUE = """
            {"name": "%s", "paused": %s, "max_running": null, "rate_limit": null, "pending": 3, "due": 2,
             "running": 1, "lag_seconds": 0.5, "starts_in_window": 0%s}""";

    @Test
    void queuesListShowsATenantColumnOnlyWhenAQueueIsAnotherTenantsAndPauseSendsTheTenant() {
        answers.put("GET /api/queues", new String[]{"200", "{\"items\": [" + QUEUE.formatted("mail", false,
                tenant("default")) + "]}"});
        Result single = cli("queues");
        answers.put("GET /api/queues", new String[]{"200", "{\"items\": [" + QUEUE.formatted("mail", true,
                tenant("acme")) + ", " + QUEUE.formatted("mail", false, tenant("default")) + "]}"});
        Result mixed = cli("queues");
        answers.put("POST /api/queues/mail/pause", new String[]{"200", QUEUE.formatted("mail", true, tenant("acme"))});
        Result paused = cli("queues", "pause", "mail", "--tenant", "acme");

        assertThat(single.code()).as(single.toString()).isZero();
        assertThat(single.out()).startsWith("QUEUE  STATE   RUNNING").doesNotContain("TENANT");
        assertThat(mixed.code()).as(mixed.toString()).isZero();
        assertThat(mixed.out()).startsWith("TENANT   QUEUE  STATE   RUNNING")
                .containsPattern("(?m)^acme     mail   paused ")
                .containsPattern("(?m)^default  mail   active ");
        assertThat(paused.code()).as(paused.toString()).isZero();
        assertThat(paused.out()).startsWith("queue mail of tenant acme paused")
                .containsPattern("(?m)^tenant +acme$");
        assertThat(requests.get(requests.size() - 1).get("tenant")).isEqualTo("acme");
    }

    @Test
    void dlqTakesTheTenantAndSharesTheRunsTable() {
        answers.put("GET /api/jobs/job_1", new String[]{"200", JOB.formatted("job_1", "")});
        answers.put("GET /api/runs", new String[]{"200", page(RUN.formatted("run_1", tenant("acme"))
                .replace("pending", "dead"))});

        Result r = cli("dlq", "--tenant", "acme");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("ID     TENANT  JOB     STATUS").containsPattern("(?m)^run_1  acme    report  dead ");
        assertThat(requests.get(0).get("tenant")).isEqualTo("acme");
        assertThat(requests.get(0).get("uri")).contains("status=dead");
        assertThat(cli("dlq", "--help").out()).contains("[--tenant NAME]");
    }

    @Test
    void jobsGetAndRunsGetPrintTheTenant() {
        answers.put("GET /api/jobs/job_1", new String[]{"200", JOB.formatted("job_1", tenant("acme"))});
        answers.put("GET /api/runs/run_1", new String[]{"200", RUN.formatted("run_1", tenant("acme"))});
        answers.put("GET /api/runs/run_2", new String[]{"200", RUN.formatted("run_2", "")});

        assertThat(cli("jobs", "get", "job_1").out()).containsPattern("(?m)^tenant +acme$");
        assertThat(cli("runs", "get", "run_1").out()).containsPattern("(?m)^tenant +acme$");
        assertThat(cli("runs", "get", "run_2").out()).containsPattern("(?m)^tenant +-$");
    }

    @Test
    void jsonOutputCarriesTheTenantAsTheServerSentIt() throws Exception {
        answers.put("GET /api/jobs/job_1", new String[]{"200", JOB.formatted("job_1", tenant("acme"))});
        answers.put("GET /api/jobs/job_2", new String[]{"200", JOB.formatted("job_2", "")});

        assertThat(json.readTree(cli("jobs", "get", "job_1", "--json").out()).get("tenant").asText()).isEqualTo("acme");
        assertThat(json.readTree(cli("jobs", "get", "job_2", "--json").out()).has("tenant")).isFalse();
    }

    @Test
    void theServersTenantErrorsAreShownAsWorded() {
        answers.put("GET /api/jobs", new String[]{"403",
                "{\"error\": \"this token acts in tenant acme only\", \"code\": \"tenant_forbidden\"}"});

        Result r = cli("jobs", "list", "--tenant", "globex");

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("this token acts in tenant acme only").contains("HTTP 403");
    }

    @Test
    void aTenantThatCannotBeSentIsAUsageErrorAndSendsNothing() {
        Result r = cli("jobs", "list", "--tenant", "ac\u00e9me");

        assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--tenant");
        assertThat(requests).isEmpty();
    }

    @Test
    void theHelpOfEveryActionNamesTheOptionAndTheVariable() {
        Result r = cli("runs", "list", "--help");

        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("--tenant NAME").contains("X-ForgeFlow-Tenant").contains("FORGEFLOW_TENANT");
    }
}
