package io.forgeflow.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The workflow commands ({@code jobs submit --depends-on}, {@code jobs get}, {@code batches submit|get}) against an
 * HTTP server on loopback that answers with the JSON shapes of API.md "Workflows": the arguments they send and what
 * they print. CommandLineIT runs them against a real node.
 */
class WorkflowCommandsTest {
    static final String JOB = """
            {"id": "job_c", "name": "report", "executor": "shell", "payload": {"command": "echo d"}, "cron_expr": null,
             "run_at": null, "timezone": "UTC", "priority": 5, "max_attempts": 3, "timeout_seconds": 300,
             "catch_up": "skip", "idempotency_key": null, "status": "active", "next_run_at": null,
             "created_at": "2026-12-02T07:00:00Z", "updated_at": "2026-12-02T07:00:00Z", "queue": "default",
             "overlap": "allow", "labels": {}, "depends_on": ["job_a", "job_b"], "on_parent_failure": "wait",
             "batch_id": "batch_1"%s}""";
    static final String LINKS = """
            , "parents": [{"id": "job_a", "name": "load-1", "status": "completed", "run_status": "succeeded"},
                          {"id": "job_b", "name": "load-2", "status": "completed", "run_status": "dead"}],
              "children": [{"id": "job_n", "name": "notify", "status": "active", "run_status": null}]""";
    static final String BATCH = """
            {"id": "batch_1", "name": "import", "idempotency_key": null, "created_at": "2026-12-02T07:00:00Z",
             "completed_at": null, "total": 4, "waiting": 1, "pending": 1, "running": 0, "succeeded": 1, "dead": 1,
             "cancelled": 0, "on_complete_job_id": "job_n", "status": "open"%s}""";

    HttpServer server;
    final List<String[]> requests = new CopyOnWriteArrayList<>(); // method, path, body
    final Map<String, String[]> answers = new ConcurrentHashMap<>(); // "METHOD path" -> status, body
    final ObjectMapper json = new ObjectMapper();

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String key = exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath();
            requests.add(new String[]{exchange.getRequestMethod(), exchange.getRequestURI().toString(), body});
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

    Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Terminal terminal = new Terminal(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("FORGEFLOW_SERVER", "http://127.0.0.1:" + server.getAddress().getPort()));
        int code = ForgeFlowCli.run(terminal, args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void dependsOnIsRepeatableAndCommaSeparatedAndSentWithThePolicy() throws Exception {
        answers.put("POST /api/jobs", new String[]{"201", JOB.formatted("")});

        Result r = cli("jobs", "submit", "--name", "report", "--command", "echo d", "--depends-on", "job_a, job_b",
                "--depends-on", "job_x", "--on-parent-failure", "wait");

        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode sent = json.readTree(requests.get(0)[2]);
        assertThat(sent.get("depends_on")).isEqualTo(json.readTree("[\"job_a\", \"job_b\", \"job_x\"]"));
        assertThat(sent.get("on_parent_failure").asText()).isEqualTo("wait");
        assertThat(r.out()).startsWith("submitted job job_c").containsPattern("(?m)^depends on +job_a, job_b$")
                .containsPattern("(?m)^parent fails +wait$").containsPattern("(?m)^batch +batch_1$")
                .doesNotContain("parents (");
    }

    @Test
    void aJobWithoutParentsSendsNoWorkflowFields() throws Exception {
        answers.put("POST /api/jobs", new String[]{"201", JOB.formatted("")});

        assertThat(cli("jobs", "submit", "--name", "x", "--command", "true").code()).isZero();

        assertThat(json.readTree(requests.get(0)[2]).has("depends_on")).isFalse();
        assertThat(json.readTree(requests.get(0)[2]).has("on_parent_failure")).isFalse();
    }

    @Test
    void aBadDependsOnOrPolicyIsAUsageErrorAndSendsNothing() {
        Result empty = cli("jobs", "submit", "--name", "x", "--command", "true", "--depends-on", "job_a,,job_b");
        assertThat(empty.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(empty.err()).contains("--depends-on").contains("comma-separated");
        Result policy = cli("jobs", "submit", "--name", "x", "--command", "true", "--depends-on", "a",
                "--on-parent-failure", "ignore");
        assertThat(policy.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(requests).isEmpty();
    }

    @Test
    void dependsOnParsingKeepsTheOrderAndTrims() {
        assertThat(JobsCommand.dependsOn(null)).isEmpty();
        assertThat(JobsCommand.dependsOn(List.of("a,b", " c "))).containsExactly("a", "b", "c");
        assertThatThrownBy(() -> JobsCommand.dependsOn(List.of("a,"))).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> JobsCommand.dependsOn(List.of(" "))).isInstanceOf(UsageException.class);
    }

    @Test
    void jobsGetPrintsTheParentsAndChildrenWithTheirStatuses() {
        answers.put("GET /api/jobs/job_c", new String[]{"200", JOB.formatted(LINKS)});

        Result r = cli("jobs", "get", "job_c");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(requests.get(0)[1]).isEqualTo("/api/jobs/job_c");
        assertThat(r.out()).contains("parents (2):\nID     NAME    STATUS     LAST RUN\n"
                + "job_a  load-1  completed  succeeded\n" + "job_b  load-2  completed  dead\n")
                .contains("children (1):\nID     NAME    STATUS  LAST RUN\n" + "job_n  notify  active  none yet\n");
    }

    @Test
    void runsListTakesTheWaitingStatus() {
        answers.put("GET /api/runs", new String[]{"200", "{\"items\": [], \"next_cursor\": null}"});

        Result r = cli("runs", "list", "--status", "waiting");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(requests.get(0)[1]).isEqualTo("/api/runs?status=waiting");
        assertThat(r.out()).contains("no waiting runs");
    }

    @Test
    void batchesSubmitSendsTheFileAsItIsAndPrintsTheBatchAndJobIds(@TempDir Path dir) throws Exception {
        String body = """
                {"name": "import", "jobs": [
                  {"ref": "a", "name": "extract", "executor": "shell", "payload": {"command": "echo a"}},
                  {"ref": "b", "name": "load", "executor": "shell", "payload": {"command": "echo b"}, "depends_on": ["a"]},
                  {"name": "cleanup", "executor": "shell", "payload": {"command": "true"}}],
                 "on_complete": {"name": "notify", "executor": "shell", "payload": {"command": "true"}}}""";
        Path file = Files.writeString(dir.resolve("batch.json"), body);
        answers.put("POST /api/batches", new String[]{"201", BATCH.formatted(
                ", \"job_ids\": [\"job_1\", \"job_2\", \"job_3\"], \"refs\": {\"a\": \"job_1\", \"b\": \"job_2\"}")});

        Result r = cli("batches", "submit", file.toString());

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(requests.get(0)[0]).isEqualTo("POST");
        assertThat(requests.get(0)[1]).isEqualTo("/api/batches");
        assertThat(json.readTree(requests.get(0)[2])).isEqualTo(json.readTree(body));
        assertThat(r.out()).startsWith("submitted batch batch_1 (3 jobs)\n")
                .contains("#  REF  JOB ID\n0  a    job_1\n1  b    job_2\n2  -    job_3\n")
                .contains("on complete: job job_n").contains("batches get batch_1");

        Result quiet = cli("batches", "submit", file.toString(), "-q");
        assertThat(quiet.out()).isEqualTo("batch_1\njob_1\njob_2\njob_3\n");
    }

    @Test
    void aReplayedBatchSaysNothingWasSubmitted(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("b.json"), "{\"idempotency_key\": \"k\", \"jobs\": []}");
        answers.put("POST /api/batches", new String[]{"200", BATCH.formatted(", \"job_ids\": [\"job_1\"]")});

        Result r = cli("batches", "submit", file.toString());

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("batch batch_1 already exists with this idempotency key and body: nothing submitted");
    }

    @Test
    void aFileThatIsMissingOrNotAJsonObjectIsAUsageErrorAndSendsNothing(@TempDir Path dir) throws Exception {
        Result missing = cli("batches", "submit", dir.resolve("nope.json").toString());
        assertThat(missing.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(missing.err()).contains("nope.json: cannot read the file");

        Path array = Files.writeString(dir.resolve("array.json"), "[{\"name\": \"x\"}]");
        Result notObject = cli("batches", "submit", array.toString());
        assertThat(notObject.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(notObject.err()).contains("array.json: the batch must be a JSON object");

        Path broken = Files.writeString(dir.resolve("broken.json"), "{\"jobs\": [");
        assertThat(cli("batches", "submit", broken.toString()).err()).contains("broken.json: the batch is not JSON");
        assertThat(requests).isEmpty();
    }

    @Test
    void aRefusedBatchShowsTheFieldTheServerNamed(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("b.json"), "{\"jobs\": [{}]}");
        answers.put("POST /api/batches", new String[]{"422",
                "{\"error\": \"jobs[0].name is required\", \"field\": \"jobs[0].name\", \"code\": \"validation_failed\"}"});

        Result r = cli("batches", "submit", file.toString());

        assertThat(r.code()).isEqualTo(ExitCodes.FAILURE);
        assertThat(r.err()).contains("jobs[0].name is required (field: jobs[0].name) [HTTP 422]");
    }

    @Test
    void batchesGetPrintsTheProgressAndTheCounts() {
        answers.put("GET /api/batches/batch_1", new String[]{"200", BATCH.formatted("")});

        Result r = cli("batches", "get", "batch_1");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).containsPattern("(?m)^status +open$").containsPattern("(?m)^on complete +job job_n$")
                .containsPattern("(?m)^progress +\\[#{15}-{15}] 2/4 ended \\(50%\\)$")
                .contains("STATUS     JOBS\nwaiting       1\npending       1\nrunning       0\nsucceeded     1\n"
                        + "dead          1\ncancelled     0\ntotal         4\n");
        String asJson = cli("batches", "get", "batch_1", "--json").out();
        assertThat(asJson).contains("\"on_complete_job_id\" : \"job_n\"").doesNotContain("job_ids").doesNotContain("refs");
        Result unknown = cli("batches", "get", "batch_x");
        assertThat(unknown.code()).isEqualTo(ExitCodes.NOT_FOUND);
    }

    @Test
    void theBarCountsEndedJobs() {
        io.forgeflow.client.Batch empty = new io.forgeflow.client.Batch("b", null, null, null, null, 0, 0, 0, 0, 0, 0,
                0, null, "completed", null, null);
        io.forgeflow.client.Batch done = new io.forgeflow.client.Batch("b", null, null, null, null, 3, 0, 0, 0, 1, 1,
                1, null, "completed", null, null);
        assertThat(BatchesCommand.bar(empty)).isEqualTo("[" + "-".repeat(30) + "] 0/0 ended (100%)");
        assertThat(BatchesCommand.bar(done)).isEqualTo("[" + "#".repeat(30) + "] 3/3 ended (100%)");
    }

    @Test
    void everyNewOptionHasHelp() {
        assertThat(help("jobs", "submit")).contains("--depends-on JOB_ID").contains("separated: --depends-on ID1,ID2")
                .contains("--on-parent-failure {cancel,run,wait}").contains("wait (until every parent succeeded)");
        assertThat(help("batches", "submit")).contains("FILE.json").contains("(POST /api/batches); prints the batch id");
        assertThat(help("batches", "get")).contains("GET /api/batches/{id}");
        assertThat(help("batches")).contains("submit").contains("get");
        assertThat(help("jobs", "get")).contains("with their parents and children");
        assertThat(help("runs", "list")).contains("{waiting,pending,running,succeeded,dead,cancelled}");
    }

    /** The help of a command, its words one space apart (the parser wraps lines to the terminal's width). */
    String help(String... command) {
        String[] args = java.util.Arrays.copyOf(command, command.length + 1);
        args[command.length] = "--help";
        return cli(args).out().replaceAll("\\s+", " ");
    }
}
