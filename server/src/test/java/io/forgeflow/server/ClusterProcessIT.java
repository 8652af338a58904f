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

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real node processes from the built jar: an api+scheduler node and three workers on one PostgreSQL. A worker is
 * killed with SIGKILL while it runs a job, and the job still succeeds elsewhere; a worker sent SIGTERM mid-run
 * drains, finishes the run and exits 0.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Map<String, String> FAST = NodeProcess.fastLeases(Map.of("FORGEFLOW_DRAIN_GRACE", "30s"));
    static final List<NodeProcess> workers = new ArrayList<>();
    static NodeProcess control;

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void startCluster() throws Exception {
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        control = NodeProcess.start("control", "api,scheduler", url, FAST);
        for (int i = 1; i <= 3; i++) {
            workers.add(NodeProcess.start("worker-" + i, "worker", url, FAST));
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        for (NodeProcess w : workers) {
            w.close();
        }
        if (control != null) {
            control.close();
        }
    }

    @Test
    @Order(1)
    void aRunSurvivesTheSigkillOfTheWorkerThatHoldsIt() throws Exception {
        String jobId = submit("{\"name\": \"survivor\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"sleep 8 && echo survived\"}}");
        JsonNode running = awaitRun(jobId, r -> "running".equals(r.path("status").asText()), Duration.ofSeconds(30));
        String holderId = running.get("worker_id").asText();
        NodeProcess holder = workers.stream().filter(w -> w.workerId.equals(holderId)).findFirst().orElseThrow();

        holder.kill();
        assertThat(holder.isAlive()).isFalse();

        JsonNode done = awaitRun(jobId, r -> "succeeded".equals(r.path("status").asText()), Duration.ofSeconds(60));
        assertThat(done.get("output").asText()).contains("survived");
        JsonNode attempts = json.readTree(get("/api/runs/" + done.get("id").asText())).get("attempts");
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).get("worker_id").asText()).isEqualTo(holderId);
        assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("lease_expired");
        assertThat(attempts.get(1).get("worker_id").asText()).isNotEqualTo(holderId);
        assertThat(attempts.get(1).get("outcome").asText()).isEqualTo("succeeded");
        workers.remove(holder);
    }

    @Test
    @Order(2)
    void aWorkerSentSigtermFinishesItsRunAndExitsZero() throws Exception {
        // The run must stay with the worker that drains: that worker's lease (30 s, heartbeat every 3 s) cannot run
        // out on a loaded machine while the shell command sleeps, which the 4 s leases of FAST could (a second
        // attempt elsewhere was seen once under a load average of 12). The other workers leave first, so it is the
        // only one that can claim the run.
        NodeProcess steady = NodeProcess.start("steady", "worker", pgUrl(),
                merge(FAST, Map.of("FORGEFLOW_LEASE_DURATION", "30s", "FORGEFLOW_HEARTBEAT_INTERVAL", "3s")));
        for (NodeProcess w : new ArrayList<>(workers)) {
            assertThat(w.terminate(Duration.ofSeconds(60))).isZero();
            workers.remove(w);
        }
        workers.add(steady);
        String jobId = submit("{\"name\": \"drain\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"sleep 3 && echo drained\"}}");
        JsonNode running = awaitRun(jobId, r -> "running".equals(r.path("status").asText()), Duration.ofSeconds(30));
        String holderId = running.get("worker_id").asText();
        assertThat(holderId).isEqualTo(steady.workerId);
        NodeProcess holder = steady;

        int exit = holder.terminate(Duration.ofSeconds(60));

        assertThat(exit).as("exit code after SIGTERM; log:\n" + holder.logText()).isZero();
        JsonNode done = awaitRun(jobId, r -> "succeeded".equals(r.path("status").asText()), Duration.ofSeconds(10));
        assertThat(done.get("output").asText()).contains("drained");
        assertThat(done.get("attempt").asInt()).isEqualTo(1);
        JsonNode attempts = json.readTree(get("/api/runs/" + done.get("id").asText())).get("attempts");
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).get("worker_id").asText()).isEqualTo(holderId);
        assertThat(holder.logText()).contains("draining");
        workers.remove(holder);
    }

    @Test
    @Order(3)
    void aWorkerSentSigtermWithARunLongerThanItsGraceReleasesItToAnotherWorker() throws Exception {
        NodeProcess impatient = NodeProcess.start("impatient", "worker", pgUrl(),
                merge(FAST, Map.of("FORGEFLOW_DRAIN_GRACE", "1s")));
        workers.add(impatient);
        // only the impatient worker runs now, so it takes the run
        for (NodeProcess w : new ArrayList<>(workers)) {
            if (w != impatient) {
                assertThat(w.terminate(Duration.ofSeconds(60))).isZero();
                workers.remove(w);
            }
        }
        String jobId = submit("{\"name\": \"long\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"sleep 4 && echo finished\"}}");
        awaitRun(jobId, r -> "running".equals(r.path("status").asText()), Duration.ofSeconds(30));

        assertThat(impatient.terminate(Duration.ofSeconds(60))).isZero();
        workers.remove(impatient);
        JsonNode released = awaitRun(jobId, r -> "pending".equals(r.path("status").asText()), Duration.ofSeconds(10));
        assertThat(released.get("attempt").asInt()).isEqualTo(1);
        assertThat(released.get("max_attempts").asInt()).as("a release does not use up an attempt").isEqualTo(4);

        NodeProcess fresh = NodeProcess.start("fresh", "worker", pgUrl(), FAST);
        workers.add(fresh);
        JsonNode done = awaitRun(jobId, r -> "succeeded".equals(r.path("status").asText()), Duration.ofSeconds(30));
        JsonNode attempts = json.readTree(get("/api/runs/" + done.get("id").asText())).get("attempts");
        assertThat(attempts).extracting(a -> a.get("outcome").asText()).containsExactly("released", "succeeded");
    }

    static String pgUrl() {
        return pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
    }

    static Map<String, String> merge(Map<String, String> a, Map<String, String> b) {
        Map<String, String> m = new java.util.HashMap<>(a);
        m.putAll(b);
        return m;
    }

    String submit(String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(control.url("/api/jobs")))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("id").asText();
    }

    String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(control.url(path))).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    JsonNode awaitRun(String jobId, Predicate<JsonNode> condition, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            JsonNode items = json.readTree(get("/api/runs?job_id=" + jobId)).get("items");
            if (items.size() > 0) {
                last = items.get(0);
                if (condition.test(last)) {
                    return last;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
        throw new AssertionError("run of job " + jobId + " did not reach the expected state within " + max
                + "; last seen: " + last + "\ncontrol log tail:\n" + tail(control.logText()));
    }

    static String tail(String s) {
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }
}
