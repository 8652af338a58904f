package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 44 through the REST API of two real node processes (each api, scheduler and worker) on one PostgreSQL: a burst
 * of 1,000 submissions of one debounce key from 8 threads, half to each node, over about 3 s, makes one run that
 * executes once, with the payload of the submission after the burst.
 */
class FlowControlProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final List<NodeProcess> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void startNodes() throws Exception {
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        for (int i = 1; i <= 2; i++) {
            nodes.add(NodeProcess.start("node-" + i, "api,scheduler,worker", url, NodeProcess.fastLeases(Map.of())));
        }
    }

    @AfterAll
    static void stopNodes() throws Exception {
        for (NodeProcess n : nodes) {
            n.close();
        }
    }

    HttpResponse<String> post(NodeProcess node, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port + "/api/jobs"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode get(String path) throws Exception {
        return json.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes.get(0).port
                + path)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    static String body(String n) {
        return "{\"name\": \"sync-profile\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo " + n + "\"}, "
                + "\"debounce\": {\"key\": \"profile-9\", \"period_seconds\": 4, \"max_wait_seconds\": 60}}";
    }

    @Test
    void aThousandSubmissionsFromEightThreadsOnTwoNodesRunOnceWithTheLastPayload() throws Exception {
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        List<Future<List<String>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                NodeProcess node = nodes.get(t % 2);
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    List<String> into = new ArrayList<>();
                    for (int i = 0; i < 125; i++) {
                        HttpResponse<String> r = post(node, body("burst-" + thread + "-" + i));
                        statuses.merge(r.statusCode(), 1, Integer::sum);
                        JsonNode answer = json.readTree(r.body());
                        into.add(answer.path("debounced_into").asText(answer.path("id").asText()));
                        Thread.sleep(20); // a burst spread over about 3 s, not a wait for a result
                    }
                    return into;
                }));
            }
            for (Future<List<String>> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(statuses).containsOnlyKeys(200, 201).containsEntry(201, 1).containsEntry(200, 999);
        HttpResponse<String> last = post(nodes.get(1), body("last"));
        assertThat(last.statusCode()).isEqualTo(200);
        String runId = json.readTree(last.body()).get("debounced_into").asText();

        JsonNode run = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            run = get("/api/runs/" + runId);
            if ("succeeded".equals(run.path("status").asText())) {
                break;
            }
            Thread.sleep(200); // polling the run's status
        }
        assertThat(run.path("status").asText()).isEqualTo("succeeded");
        assertThat(run.path("output").asText()).contains("last");
        assertThat(run.path("attempts")).hasSize(1);
        JsonNode jobs = get("/api/jobs?name_prefix=sync-profile&limit=10").get("items");
        assertThat(jobs).hasSize(1);
        assertThat(jobs.get(0).path("debounce").path("key").asText()).isEqualTo("profile-9");
        assertThat(get("/api/runs?limit=50").get("items")).hasSize(1);
        double joined = 0;
        for (NodeProcess node : nodes) {
            String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("(?m)^forgeflow_debounced_submissions_total\\{edge=\"trailing\"} (\\S+)$").matcher(metrics);
            assertThat(m.find()).as("node %s exports the counter", node.workerId).isTrue();
            joined += Double.parseDouble(m.group(1));
        }
        assertThat(joined).as("submissions joined, counted by the nodes that took them").isEqualTo(1_000.0);
    }
}
