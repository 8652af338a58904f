package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watching a cluster of real node processes on one PostgreSQL: node A serves the API only (no worker, no
 * scheduler); node B does everything and logs JSON lines; node C is a worker that runs http jobs only, and dies.
 * A change made on B reaches an event stream on A through the database; B's log lines about a run carry its fields;
 * C, killed, is listed as gone, then dropped.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObservabilityProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Map<String, String> FAST = NodeProcess.fastLeases(Map.of("FORGEFLOW_DRAIN_GRACE", "5s"));
    static final Duration WITHIN = Duration.ofSeconds(30);

    static NodeProcess apiOnly;
    static NodeProcess everything;
    static NodeProcess doomed;

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void startCluster() throws Exception {
        String url = ClusterProcessIT.pgUrl();
        apiOnly = NodeProcess.start("node-a", "api", url, FAST);
        everything = NodeProcess.start("node-b", "api,scheduler,worker", url,
                with(FAST, Map.of("FORGEFLOW_LOG_FORMAT", "json", "FORGEFLOW_EXECUTORS", "shell")));
        doomed = NodeProcess.start("node-c", "worker", url, with(FAST, Map.of("FORGEFLOW_EXECUTORS", "http")));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        for (NodeProcess node : new NodeProcess[] {doomed, everything, apiOnly}) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    @Order(1)
    void aRunMovedByNodeBIsStreamedToAClientOfNodeA() throws Exception {
        try (SseClient events = SseClient.connect(URI.create(apiOnly.url("/api/events")), null)) {
            assertThat(events.status).isEqualTo(200);

            String jobId = submit(everything, "{\"name\": \"cross-node\", \"executor\": \"shell\", "
                    + "\"payload\": {\"command\": \"echo across\"}}");

            List<SseClient.Event> seen = events.until(e -> jobId.equals(e.data().path("job_id").asText())
                    && "succeeded".equals(e.status()), WITHIN);
            List<SseClient.Event> ofJob = seen.stream().filter(e -> jobId.equals(e.data().path("job_id").asText())).toList();
            assertThat(ofJob).extracting(SseClient.Event::status).containsExactly("pending", "running", "succeeded");
            assertThat(ofJob.get(2).data().get("worker_id").asText()).isEqualTo("node-b");
        }
    }

    @Test
    @Order(2)
    void nodeBLogsJsonLinesAndThoseAboutARunCarryItsFields() throws Exception {
        String jobId = submit(everything, "{\"name\": \"logged\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"exit 3\"}}");
        JsonNode run = awaitRun(jobId, "dead");
        String runId = run.get("id").asText();

        JsonNode line = awaitLogLine(everything, l -> runId.equals(l.path("run_id").asText()));

        assertThat(line.get("job_id").asText()).isEqualTo(jobId);
        assertThat(line.get("attempt").asText()).isEqualTo("1");
        assertThat(line.get("worker_id").asText()).isEqualTo("node-b");
        assertThat(line.get("level").asText()).isEqualTo("INFO");
        assertThat(line.get("message").asText()).contains(runId, "dead");
        assertThat(line.has("timestamp")).isTrue();
        assertThat(line.has("logger")).isTrue();
    }

    @Test
    @Order(3)
    void aKilledNodeIsListedAsGoneThenDropped() throws Exception {
        awaitNodes(items -> status(items, "node-c").equals("live"));

        doomed.kill();

        JsonNode gone = awaitNodes(items -> status(items, "node-c").equals("gone"));
        assertThat(status(gone, "node-a")).isEqualTo("live");
        assertThat(status(gone, "node-b")).isEqualTo("live");
        // heartbeat 1 s: gone after 3 s unseen, dropped after 10 s
        awaitNodes(items -> status(items, "node-c").equals("absent"));
    }

    @Test
    @Order(4)
    void aNodeSentSigtermEndsItsEventStreamsAndExitsPromptly() throws Exception {
        try (SseClient events = SseClient.connect(URI.create(apiOnly.url("/api/events")), null)) {
            assertThat(events.status).isEqualTo(200);
            long start = System.nanoTime();

            int exit = apiOnly.terminate(Duration.ofSeconds(30));

            assertThat(exit).as("exit code; log:\n" + ClusterProcessIT.tail(apiOnly.logText())).isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
            long deadline = System.nanoTime() + WITHIN.toNanos();
            while (!events.ended && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(50); // polling a condition with a deadline
            }
            assertThat(events.ended).as("the stream ended").isTrue();
        }
    }

    static String status(JsonNode items, String workerId) {
        for (JsonNode node : items) {
            if (workerId.equals(node.get("worker_id").asText())) {
                return node.get("status").asText();
            }
        }
        return "absent";
    }

    JsonNode awaitNodes(Predicate<JsonNode> condition) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        JsonNode items = null;
        while (System.nanoTime() < deadline) {
            items = json.readTree(get(apiOnly, "/api/nodes")).get("items");
            if (condition.test(items)) {
                return items;
            }
            TimeUnit.MILLISECONDS.sleep(200); // polling a condition with a deadline
        }
        throw new AssertionError("the nodes never matched; last: " + items);
    }

    /** Waits for a log line matching {@code condition}; every line of the log must be a JSON object. */
    JsonNode awaitLogLine(NodeProcess node, Predicate<JsonNode> condition) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            List<JsonNode> lines = jsonLines(node);
            for (JsonNode line : lines) {
                if (condition.test(line)) {
                    return line;
                }
            }
            TimeUnit.MILLISECONDS.sleep(200); // polling a condition with a deadline
        }
        throw new AssertionError("no such log line; log tail:\n" + ClusterProcessIT.tail(node.logText()));
    }

    List<JsonNode> jsonLines(NodeProcess node) {
        List<JsonNode> parsed = new ArrayList<>();
        String[] lines = node.logText().split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank() || (i == lines.length - 1 && !line.endsWith("}"))) {
                continue; // the last line may be half written
            }
            try {
                JsonNode tree = json.readTree(line);
                assertThat(tree.isObject()).as("a JSON object per line: " + line).isTrue();
                parsed.add(tree);
            } catch (IOException e) {
                throw new AssertionError("not a JSON log line: " + line, e);
            }
        }
        return parsed;
    }

    String submit(NodeProcess node, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.url("/api/jobs")))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("id").asText();
    }

    JsonNode awaitRun(String jobId, String status) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            JsonNode items = json.readTree(get(apiOnly, "/api/runs?job_id=" + jobId)).get("items");
            if (items.size() > 0) {
                last = items.get(0);
                if (status.equals(last.get("status").asText())) {
                    return last;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
        throw new AssertionError("run of job " + jobId + " never became " + status + "; last: " + last);
    }

    String get(NodeProcess node, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(node.url(path))).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
        Map<String, String> m = new HashMap<>(a);
        m.putAll(b);
        return m;
    }
}
