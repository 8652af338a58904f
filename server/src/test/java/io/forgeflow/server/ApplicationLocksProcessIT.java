package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.PsqlSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, with real nodes and {@code psql} sessions playing an application and an operator: a lock held on engine
 * rows for far longer than the lease costs no healthy run its lease, and two processes started with one
 * {@code FORGEFLOW_WORKER_ID} never run one run twice. Leases are 4 s here; every lock is held 20 s.
 */
class ApplicationLocksProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String APPLICATION = "forgeflow-test-application";
    static final Map<String, String> FAST = NodeProcess.FAST_LEASES;

    @TempDir
    Path dir;
    final List<NodeProcess> nodes = new ArrayList<>();
    final List<PsqlSession> sessions = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (PsqlSession session : sessions) {
            session.close();
        }
        pg.jdbi().useHandle(h -> h.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                + "WHERE application_name = '" + APPLICATION + "'"));
        for (NodeProcess node : nodes) {
            node.close();
        }
    }

    NodeProcess start(String id, String roles) throws Exception {
        NodeProcess node = NodeProcess.start(id, roles, ClusterProcessIT.pgUrl(), FAST);
        nodes.add(node);
        return node;
    }

    @Test
    void anApplicationTransactionLinkingAChildToARunningParentCostsNoRunItsLease() throws Exception {
        NodeProcess control = start("locks-control", "api,scheduler");
        start("locks-worker", "worker");
        NodeApi api = new NodeApi(() -> control.port);
        Path executions = dir.resolve("executions");
        String parent = api.submit(sleeper("parent", executions, 8));
        String unrelated = api.submit(sleeper("unrelated", executions, 8));
        api.awaitRun(parent, NodeApi.status("running"));
        api.awaitRun(unrelated, NodeApi.status("running"));

        hold("SELECT job_id FROM forgeflow.enqueue(name => 'child', executor => 'shell', "
                + "payload => '{\"command\": \"true\"}', depends_on => ARRAY['" + parent + "']::uuid[])");

        JsonNode parentRun = api.awaitRun(parent, NodeApi.status("succeeded"), Duration.ofSeconds(60));
        JsonNode unrelatedRun = api.awaitRun(unrelated, NodeApi.status("succeeded"), Duration.ofSeconds(60));
        assertOneAttempt(api, parentRun);
        assertOneAttempt(api, unrelatedRun);
        assertThat(lines(executions)).containsExactlyInAnyOrder("parent", "unrelated");
    }

    @Test
    void anOperatorHoldingARunningRunsRowForUpdateCostsItNotItsLease() throws Exception {
        NodeProcess control = start("op-control", "api,scheduler");
        start("op-worker", "worker");
        NodeApi api = new NodeApi(() -> control.port);
        Path executions = dir.resolve("executions");
        String job = api.submit(sleeper("held", executions, 6));
        JsonNode running = api.awaitRun(job, NodeApi.status("running"));

        hold("SELECT id FROM forgeflow.runs WHERE id = '" + running.get("id").asText() + "' FOR UPDATE");

        JsonNode run = api.awaitRun(job, NodeApi.status("succeeded"), Duration.ofSeconds(60));
        assertOneAttempt(api, run);
        assertThat(lines(executions)).containsExactly("held");
    }

    @Test
    void twoWorkerProcessesWithOneConfiguredIdRunALongJobOnce() throws Exception {
        NodeProcess control = start("twins-control", "api,scheduler");
        start("twin", "worker");
        NodeProcess second = NodeProcess.start("twin", "worker", ClusterProcessIT.pgUrl(), FAST);
        nodes.add(second);
        NodeApi api = new NodeApi(() -> control.port);
        Path executions = dir.resolve("executions");

        String job = api.submit(sleeper("long", executions, 15));

        JsonNode run = api.awaitRun(job, NodeApi.status("succeeded"), Duration.ofSeconds(60));
        assertOneAttempt(api, run);
        assertThat(lines(executions)).as("executed once").containsExactly("long");
        assertThat(run.get("worker_id").asText()).isEqualTo("twin");
    }

    private static String sleeper(String name, Path executions, int seconds) {
        return "{\"name\": \"" + name + "\", \"executor\": \"shell\", \"max_attempts\": 3, \"payload\": {\"command\": "
                + "\"echo " + name + " >> " + executions + "; sleep " + seconds + "\"}}";
    }

    private static void assertOneAttempt(NodeApi api, JsonNode run) throws Exception {
        JsonNode attempts = api.read("/api/runs/" + run.get("id").asText()).get("attempts");
        assertThat(attempts).as(attempts.toString()).hasSize(1);
        assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("succeeded");
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    /** A psql session that runs {@code statement} in a transaction and keeps it open for 20 s, then commits. */
    private void hold(String statement) throws Exception {
        sessions.add(PsqlSession.hold(pg, APPLICATION, statement, 20));
    }
}
