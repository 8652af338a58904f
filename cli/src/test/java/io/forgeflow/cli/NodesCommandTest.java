package io.forgeflow.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code forgeflow nodes} against an HTTP server on loopback that answers {@code GET /api/nodes} as a node does (API.md):
 * the table and the JSON show each node's wake-ups, leadership, leader's term and connections (issue 46), and a node
 * that says none of them (an older one) still shows.
 */
class NodesCommandTest {
    static final String NODES = """
            {"items": [
              {"worker_id": "api-1", "roles": ["api", "scheduler"], "version": "0.1.0",
               "started_at": "2026-12-06T09:00:00Z", "last_seen_at": "2026-12-06T09:30:00Z", "running": 0,
               "leader": true, "status": "live", "containment": null, "job_user": null, "grpc": null,
               "database_pooling": "transaction", "wake_ups": "polling", "leadership": "lease", "leader_term": 7,
               "connections": {"pool_max": 12, "pool_in_use": 3, "sessions": 0}},
              {"worker_id": "worker-2", "roles": ["worker"], "version": "0.1.0",
               "started_at": "2026-12-06T09:00:00Z", "last_seen_at": "2026-12-06T09:30:00Z", "running": 5,
               "leader": false, "status": "live", "containment": "process-group", "job_user": null, "grpc": null,
               "database_pooling": "transaction", "wake_ups": "notify", "leadership": null, "leader_term": null,
               "connections": {"pool_max": 36, "pool_in_use": 9, "sessions": 1}},
              {"worker_id": "old-3", "roles": ["worker"], "version": "0.0.9",
               "started_at": "2026-12-06T09:00:00Z", "last_seen_at": "2026-12-06T09:30:00Z", "running": 1,
               "leader": false}
            ]}""";

    HttpServer server;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/api/nodes", exchange -> {
            byte[] bytes = NODES.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
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
    void theTableShowsWakeUpsLeadershipTheLeadersTermAndConnections() {
        Result r = cli("nodes");

        assertThat(r.code()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines[0]).containsSubsequence("WORKER", "LEADER", "WAKE-UPS", "LEADERSHIP", "CONNECTIONS");
        assertThat(lines[1]).startsWith("api-1")
                .containsSubsequence("leader (term 7)", "polling", "lease", "pool 3/12, sessions 0");
        assertThat(lines[2]).startsWith("worker-2")
                .containsSubsequence("notify", "-", "pool 9/36, sessions 1").doesNotContain("leader");
        // an older node says none of them: dashes, not a failure
        assertThat(lines[3]).startsWith("old-3").matches(".*\\s-\\s+-\\s+-$");
        assertThat(lines).hasSize(4);
    }

    @Test
    void theJsonCarriesTheFieldsAsTheApiNamesThem() throws Exception {
        Result r = cli("nodes", "--json");

        assertThat(r.code()).as(r.err()).isZero();
        JsonNode items = new ObjectMapper().readTree(r.out()).get("items");
        assertThat(items).hasSize(3);
        JsonNode leader = items.get(0);
        assertThat(leader.get("wake_ups").asText()).isEqualTo("polling");
        assertThat(leader.get("leadership").asText()).isEqualTo("lease");
        assertThat(leader.get("leader_term").asLong()).isEqualTo(7);
        assertThat(leader.get("connections").get("pool_max").asInt()).isEqualTo(12);
        assertThat(leader.get("connections").get("pool_in_use").asInt()).isEqualTo(3);
        assertThat(leader.get("connections").get("sessions").asInt()).isZero();
        JsonNode worker = items.get(1);
        assertThat(worker.get("wake_ups").asText()).isEqualTo("notify");
        assertThat(worker.get("leader_term").isNull()).isTrue();
        assertThat(worker.get("connections").get("sessions").asInt()).isEqualTo(1);
        assertThat(items.get(2).get("connections").isNull()).isTrue();
    }
}
