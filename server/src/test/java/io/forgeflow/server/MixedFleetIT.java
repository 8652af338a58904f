package io.forgeflow.server;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import io.forgeflow.embedded.ForgeFlowWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.forgeflow.server.EmbeddedWorkerKillIT.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two node processes (shell and http) and two embedded workers (handlers alpha and beta, beta and gamma) share one
 * database: 2,000 runs, each run once, each by a worker that can run it.
 */
class MixedFleetIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final int SHELL = 500;
    static final int HTTP = 300;
    static final int ALPHA = 400;
    static final int BETA = 400;
    static final int GAMMA = 400;

    @Test
    void twoThousandRunsOfShellHttpAndThreeHandlersRunEachOnceOnAWorkerThatHasTheirExecutor() throws Exception {
        Path marks = Files.createTempFile("mixed-fleet-shell", ".txt");
        Map<Integer, AtomicInteger> hooks = new ConcurrentHashMap<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            int i = Integer.parseInt(body.replaceAll("[^0-9]", ""));
            hooks.computeIfAbsent(i, k -> new AtomicInteger()).incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
        receiver.start();
        Map<String, String> env = Map.of("FORGEFLOW_HTTP_ALLOW_PRIVATE", "true", "FORGEFLOW_CONCURRENCY", "16",
                "FORGEFLOW_POLL_INTERVAL", "500ms", "FORGEFLOW_HEARTBEAT_INTERVAL", "3s", "FORGEFLOW_LEASE_DURATION", "15s");
        Map<String, Set<String>> ranOn = new ConcurrentHashMap<>(); // handler run id -> workers that ran it
        try (NodeProcess nodeA = NodeProcess.start("node-a", "api,scheduler,worker", EmbeddedWorkers.nodeUrl(pg), env);
             NodeProcess nodeB = NodeProcess.start("node-b", "worker", EmbeddedWorkers.nodeUrl(pg), env);
             HikariDataSource app = EmbeddedWorkers.pool(pg, 4);
             HikariDataSource poolOne = EmbeddedWorkers.pool(pg, 10);
             HikariDataSource poolTwo = EmbeddedWorkers.pool(pg, 10);
             // two applications, each with its own pool: three sessions held, a few more borrowed at once
             ForgeFlowWorker one = EmbeddedWorkers.steady(poolOne, "app-1")
                     .handler("alpha", ctx -> mark(ranOn, ctx.runId(), "app-1"))
                     .handler("beta", ctx -> mark(ranOn, ctx.runId(), "app-1")).start();
             ForgeFlowWorker two = EmbeddedWorkers.steady(poolTwo, "app-2")
                     .handler("beta", ctx -> mark(ranOn, ctx.runId(), "app-2"))
                     .handler("gamma", ctx -> mark(ranOn, ctx.runId(), "app-2")).start()) {
            Map<String, String> kindOf = new HashMap<>();
            String hook = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
            List<JobRequest> requests = new ArrayList<>();
            List<String> kinds = new ArrayList<>();
            for (int i = 0; i < SHELL; i++) {
                requests.add(JobRequest.shell("shell-" + i, "echo \"$FORGEFLOW_RUN_ID\" >> " + marks).build());
                kinds.add("shell");
            }
            for (int i = 0; i < HTTP; i++) {
                requests.add(JobRequest.builder("http-" + i, "http")
                        .payload(Map.of("url", hook, "body", Map.of("i", i))).build());
                kinds.add("http");
            }
            String[] handlers = {"alpha", "beta", "gamma"};
            int[] counts = {ALPHA, BETA, GAMMA};
            for (int h = 0; h < handlers.length; h++) {
                for (int i = 0; i < counts[h]; i++) {
                    requests.add(JobRequest.handler(handlers[h] + "-" + i, handlers[h], Map.of("i", i)).build());
                    kinds.add(handlers[h]);
                }
            }
            try (Connection c = app.getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < requests.size(); i++) {
                    kindOf.put(ForgeFlowJdbc.enqueue(c, requests.get(i)).runId(), kinds.get(i));
                    if (i % 100 == 99) {
                        c.commit();
                    }
                }
                c.commit();
            }
            assertThat(kindOf).hasSize(2_000);

            await("every run succeeds", Duration.ofSeconds(240), () -> pg.jdbi().withHandle(h -> h.createQuery(
                    "SELECT count(*) FROM runs WHERE status = 'succeeded'").mapTo(Integer.class).one()) == 2_000,
                    nodeA.log, nodeB.log);

            // one successful attempt per run; any other attempt is a release of a run its worker never started (a
            // node under load giving back a claim whose reply it had not seen), which is not an execution
            List<Map<String, Object>> attempts = pg.jdbi().withHandle(h -> h.createQuery(
                    "SELECT run_id::text AS run_id, attempt, worker_id, outcome, error FROM run_attempts").mapToMap().list());
            List<Map<String, Object>> succeeded = attempts.stream().filter(a -> "succeeded".equals(a.get("outcome"))).toList();
            assertThat(succeeded.stream().map(a -> a.get("run_id")).distinct()).as("one success per run").hasSize(2_000);
            assertThat(succeeded).hasSize(2_000);
            assertThat(attempts).filteredOn(a -> !"succeeded".equals(a.get("outcome")))
                    .allSatisfy(a -> assertThat(a.get("outcome")).as(a.toString()).isEqualTo("released"));
            Set<String> nodes = Set.of("node-a", "node-b");
            for (Map<String, Object> a : succeeded) {
                String kind = kindOf.get((String) a.get("run_id"));
                String workerId = (String) a.get("worker_id");
                switch (kind) {
                    case "shell", "http" -> assertThat(nodes).as(kind + " on a node").contains(workerId);
                    case "alpha" -> assertThat(workerId).isEqualTo("app-1");
                    case "gamma" -> assertThat(workerId).isEqualTo("app-2");
                    default -> assertThat(workerId).isIn("app-1", "app-2");
                }
            }
            System.out.printf("mixed fleet: %d runs, %d attempts (%d released unstarted)%n", kindOf.size(),
                    attempts.size(), attempts.size() - succeeded.size());
            // executed once: the handlers, the webhook receiver and the shell commands each saw every run once
            assertThat(ranOn).hasSize(ALPHA + BETA + GAMMA);
            ranOn.forEach((run, workers) -> assertThat(workers).as(run).hasSize(1));
            assertThat(hooks).hasSize(HTTP);
            hooks.forEach((i, n) -> assertThat(n.get()).as("webhook " + i).isEqualTo(1));
            List<String> lines = Files.readAllLines(marks);
            assertThat(lines).hasSize(SHELL).doesNotHaveDuplicates();
        } finally {
            receiver.stop(0);
            Files.deleteIfExists(marks);
        }
    }

    private static void mark(Map<String, Set<String>> ranOn, String runId, String worker) {
        ranOn.computeIfAbsent(runId, k -> ConcurrentHashMap.newKeySet()).add(worker + "#" + System.nanoTime());
    }
}
