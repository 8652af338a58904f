package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch of 10,000 jobs created in one call on two real nodes that both run the scheduler (they race for the
 * leadership, and both sweep batches while they lead): the leader is killed with SIGKILL mid-batch, its leased runs
 * come back after their lease, the other node takes over, and the batch's on_complete job runs exactly once with the
 * batch's counts.
 */
class WorkflowBatchProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Map<String, String> FAST = Map.of(
            "FORGEFLOW_LEASE_DURATION", "4s",
            "FORGEFLOW_HEARTBEAT_INTERVAL", "1s",
            "FORGEFLOW_POLL_INTERVAL", "200ms",
            "FORGEFLOW_SCHEDULER_TICK", "300ms",
            "FORGEFLOW_LEADER_SESSION_TIMEOUT", "3s",
            "FORGEFLOW_CONCURRENCY", "16");
    static final int JOBS = 10_000;

    @TempDir
    Path dir;

    @Test
    void aBatchOf10000CompletesOnceAcrossALeaderKilledMidway() throws Exception {
        String url = ClusterProcessIT.pgUrl();
        try (NodeProcess a = NodeProcess.start("batch-a", "api,scheduler,worker", url, FAST);
             NodeProcess b = NodeProcess.start("batch-b", "api,scheduler,worker", url, FAST)) {
            NodeApi api = new NodeApi(() -> a.port);
            NodeApi other = new NodeApi(() -> b.port);
            Path done = dir.resolve("done");
            StringBuilder body = new StringBuilder("{\"name\": \"ten-thousand\", \"idempotency_key\": \"tt-1\", \"jobs\": [");
            for (int i = 0; i < JOBS; i++) {
                body.append(i == 0 ? "" : ",").append("{\"name\": \"j").append(i)
                        .append("\", \"executor\": \"noop\", \"payload\": {\"sleep_ms\": 20}}");
            }
            body.append("], \"on_complete\": {\"name\": \"report\", \"executor\": \"shell\", \"payload\": {\"command\": "
                    + "\"echo $FORGEFLOW_BATCH_ID $FORGEFLOW_BATCH_SUCCEEDED $FORGEFLOW_BATCH_DEAD "
                    + "$FORGEFLOW_BATCH_CANCELLED >> " + done + "\"}}}");

            HttpResponse<String> created = api.send("POST", "/api/batches", body.toString());
            assertThat(created.statusCode()).as(created.body().length() > 500 ? created.body().substring(0, 500)
                    : created.body()).isEqualTo(201);
            JsonNode batch = api.json.readTree(created.body());
            String id = batch.get("id").asText();
            assertThat(batch.get("job_ids")).hasSize(JOBS);
            String then = batch.get("on_complete_job_id").asText();
            // the same call again, to the other node: the same batch, nothing created twice
            HttpResponse<String> replay = other.send("POST", "/api/batches", body.toString());
            assertThat(replay.statusCode()).isEqualTo(200);
            assertThat(other.json.readTree(replay.body()).get("id").asText()).isEqualTo(id);

            awaitSucceeded(api, id, 2_000, Duration.ofSeconds(120));
            NodeProcess leader = isLeader(a) ? a : b;
            NodeProcess survivor = leader == a ? b : a;
            assertThat(isLeader(leader)).as("one of the two nodes leads").isTrue();
            leader.kill();
            NodeApi left = new NodeApi(() -> survivor.port);

            JsonNode report = left.awaitRun(then, NodeApi.status("succeeded"), Duration.ofSeconds(240));
            JsonNode progress = left.read("/api/batches/" + id);
            assertThat(progress.get("status").asText()).isEqualTo("completed");
            assertThat(progress.get("succeeded").asInt()).isEqualTo(JOBS);
            assertThat(progress.get("dead").asInt()).isZero();
            assertThat(progress.get("cancelled").asInt()).isZero();
            assertThat(isLeader(survivor)).as("the survivor took the leadership over").isTrue();

            Thread.sleep(2_000); // several more passes of the leader: nothing releases on_complete again
            assertThat(Files.readAllLines(done)).containsExactly(id + " " + JOBS + " 0 0");
            JsonNode thenRuns = left.read("/api/runs?job_id=" + then);
            assertThat(thenRuns.get("items")).hasSize(1);
            assertThat(report.get("attempt").asInt()).isEqualTo(1);
            // the killed node's leased runs were taken back by the new leader after their lease
            int expired = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM run_attempts "
                    + "WHERE outcome = 'lease_expired' AND worker_id = :w").bind("w", leader.workerId)
                    .mapTo(Integer.class).one());
            assertThat(expired).as("attempts of the killed node that ended lease_expired").isPositive();
        }
    }

    static void awaitSucceeded(NodeApi api, String batch, int atLeast, Duration within) throws Exception {
        Instant deadline = Instant.now().plus(within);
        JsonNode last = null;
        while (Instant.now().isBefore(deadline)) {
            last = api.read("/api/batches/" + batch);
            if (last.get("succeeded").asInt() >= atLeast) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the batch did not reach " + atLeast + " successes in time: " + last);
    }

    static boolean isLeader(NodeProcess node) throws Exception {
        String metrics = new NodeApi(() -> node.port).get("/metrics").body();
        return List.of(metrics.split("\n")).contains("forgeflow_scheduler_leader 1.0");
    }
}
