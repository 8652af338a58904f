package io.forgeflow.server;

import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import io.forgeflow.embedded.ForgeFlowWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application JVM with an embedded worker is SIGKILLed while its handler runs: a standalone node's scheduler leader
 * recovers the run once its lease expires, and another embedded worker finishes it.
 */
class EmbeddedWorkerKillIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static void await(String what, Duration max, BooleanSupplier condition, Path... logs) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                StringBuilder text = new StringBuilder();
                for (Path log : logs) {
                    text.append("\n--- ").append(log).append(":\n").append(ClusterProcessIT.tail(Files.readString(log)));
                }
                throw new AssertionError(what + " did not happen within " + max + text);
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling a condition with a deadline
        }
    }

    static Process startApplication(String workerId, Path log) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                classpath, EmbeddedWorkerMain.class.getName(), pg.jdbcUrl(), pg.user(), pg.password(), workerId)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        return pb.start();
    }

    @Test
    void aKilledApplicationsRunIsRecoveredByTheNodesLeaderAndFinishedByAnotherEmbeddedWorker() throws Exception {
        Path logs = Files.createDirectories(Path.of("target", "node-logs"));
        Path childLog = logs.resolve("embedded-child.log");
        try (NodeProcess node = NodeProcess.start("leader-node", "api,scheduler", EmbeddedWorkers.nodeUrl(pg),
                Map.of("FORGEFLOW_SCHEDULER_TICK", "500ms", "FORGEFLOW_HEARTBEAT_INTERVAL", "1s",
                        "FORGEFLOW_LEASE_DURATION", "4s", "FORGEFLOW_RETRY_BASE", "100ms"));
             HikariDataSource app = EmbeddedWorkers.pool(pg, 10)) {
            Process child = startApplication("doomed-app", childLog);
            try {
                await("the child application's worker is ready", Duration.ofSeconds(60),
                        () -> read(childLog).contains("ready doomed-app"), childLog);
                Enqueued e;
                try (Connection c = app.getConnection()) {
                    c.setAutoCommit(false);
                    e = ForgeFlowJdbc.enqueue(c, JobRequest.handler("slow-1", "slow", Map.of("n", 1)).maxAttempts(3).build());
                    c.commit();
                }
                await("the child's handler runs it", Duration.ofSeconds(30),
                        () -> read(childLog).contains("started " + e.runId()), childLog);

                child.destroyForcibly(); // SIGKILL: no shutdown hook, no drain, no release
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(child.exitValue()).isEqualTo(137);

                Set<String> finished = ConcurrentHashMap.newKeySet();
                try (ForgeFlowWorker survivor = EmbeddedWorkers.fast(app, "survivor-app")
                        .handler("slow", ctx -> finished.add(ctx.runId() + " attempt " + ctx.attempt())).start()) {
                    await("the run succeeds on the other worker", Duration.ofSeconds(60), () -> "succeeded".equals(
                            pg.jdbi().withHandle(h -> h.createQuery("SELECT status FROM runs WHERE id = CAST(:id AS uuid)")
                                    .bind("id", e.runId()).mapTo(String.class).one())), childLog, node.log);
                    assertThat(finished).containsExactly(e.runId() + " attempt 2");
                }
                List<Map<String, Object>> attempts = pg.jdbi().withHandle(h -> h.createQuery(
                        "SELECT attempt, worker_id, outcome FROM run_attempts WHERE run_id = CAST(:id AS uuid) ORDER BY attempt")
                        .bind("id", e.runId()).mapToMap().list());
                assertThat(attempts).hasSize(2);
                assertThat(attempts.get(0)).containsEntry("worker_id", "doomed-app").containsEntry("outcome", "lease_expired");
                assertThat(attempts.get(1)).containsEntry("worker_id", "survivor-app").containsEntry("outcome", "succeeded");
                assertThat(node.logText()).contains("lease of attempt 1 expired");
            } finally {
                child.destroyForcibly();
            }
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
