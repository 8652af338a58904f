package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults beyond kill -9 with real node processes: a scheduler leader stopped with SIGSTOP, a worker killed with
 * SIGKILL while its shell job sleeps, and a worker stopped past its lease. The shell job records its pid, so the
 * test sees whether the first execution is still alive when the second one starts.
 */
class StoppedProcessesIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Map<String, String> FAST = NodeProcess.fastLeases(Map.of("FORGEFLOW_DRAIN_GRACE", "30s"));

    @TempDir
    Path dir;
    final List<NodeProcess> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @AfterEach
    void stopNodes() throws Exception {
        for (NodeProcess node : nodes) {
            signal(node.pid(), "CONT");
            node.close();
        }
    }

    NodeProcess start(String id, String roles, Map<String, String> env) throws Exception {
        NodeProcess node = NodeProcess.start(id, roles, ClusterProcessIT.pgUrl(), env);
        nodes.add(node);
        return node;
    }

    @Test
    void aStoppedLeaderLosesTheLeadWithinFifteenSecondsAndStepsDownWhenItWakes() throws Exception {
        // the scheduler's own defaults: a 1 s tick and a 10 s limit on the leader's silent session
        Map<String, String> env = Map.of("FORGEFLOW_HEARTBEAT_INTERVAL", "1s", "FORGEFLOW_LEASE_DURATION", "4s");
        NodeProcess a = start("sched-a", "api,scheduler", env);
        NodeProcess b = start("sched-b", "api,scheduler", env);
        start("sched-worker", "worker", env);
        String jobId = submit(a, "{\"name\": \"every-2s\", \"executor\": \"shell\", \"cron_expr\": \"*/2 * * * * *\", "
                + "\"payload\": {\"command\": \"true\"}}");
        awaitTrue(Duration.ofSeconds(30), "two ticks fired", () -> ticks(jobId).size() >= 2);
        NodeProcess leader = awaitLeader(List.of(a, b));
        NodeProcess standby = leader == a ? b : a;

        Instant stopped = Instant.now();
        signal(leader.pid(), "STOP");

        awaitTrue(Duration.ofSeconds(40), "a tick after the stop", () -> firstTickCreatedAfter(jobId, stopped) != null);
        Instant resumed = firstTickCreatedAfter(jobId, stopped);
        Duration failover = Duration.between(stopped, resumed);
        System.out.println("leader SIGSTOP: ticks resumed on the standby after " + failover.toMillis() + " ms");
        assertThat(failover).as("ticks resume on the standby").isLessThan(Duration.ofSeconds(15));

        signal(leader.pid(), "CONT");
        awaitTrue(Duration.ofSeconds(30), "the woken leader steps down",
                () -> leader.logText().contains("stepping down"));
        int before = ticks(jobId).size();
        awaitTrue(Duration.ofSeconds(30), "three more ticks", () -> ticks(jobId).size() >= before + 3);

        List<Instant> ticks = ticks(jobId);
        assertThat(ticks).as("no tick fired twice").doesNotHaveDuplicates();
        assertThat(leader.logText()).contains("stepping down");
        awaitTrue(Duration.ofSeconds(15), "the standby shown as the leader", () -> {
            JsonNode nodesNow = json.readTree(get(standby, "/api/nodes")).get("items");
            for (JsonNode n : nodesNow) {
                if (n.get("worker_id").asText().equals(standby.workerId) && !n.get("leader").asBoolean()) {
                    return false;
                }
                if (n.get("worker_id").asText().equals(leader.workerId) && n.get("leader").asBoolean()) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void aKilledWorkersShellJobDiesWithinFiveSecondsAndTheRunSucceedsOnceElsewhere() throws Exception {
        NodeProcess control = start("control", "api,scheduler", FAST);
        NodeProcess w1 = start("kill-w1", "worker", FAST);
        NodeProcess w2 = start("kill-w2", "worker", FAST);
        Path pids = dir.resolve("pids");
        String marker = marker();
        String jobId = submit(control, sleepsOnFirstAttempt(pids, marker));
        awaitTrue(Duration.ofSeconds(30), "the first attempt's four sleeps", () -> pidsIn(pids).size() == 1
                && liveWithArgument(marker).size() == 4);
        JsonNode running = latestRun(control, jobId);
        NodeProcess holder = running.get("worker_id").asText().equals(w1.workerId) ? w1 : w2;

        holder.kill();
        long killedAt = System.nanoTime();

        // escapees included: GNU timeout's own group, a new session, a double fork (issue 37)
        awaitTrue(Duration.ofSeconds(5), "every process of the first attempt gone",
                () -> liveWithArgument(marker).isEmpty());
        System.out.println("worker SIGKILL: its job's process gone after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt) + " ms");
        awaitTrue(Duration.ofSeconds(60), "the run succeeded",
                () -> "succeeded".equals(latestRun(control, jobId).path("status").asText()));
        JsonNode attempts = attempts(control, jobId);
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("lease_expired");
        assertThat(attempts.get(1).get("worker_id").asText()).isNotEqualTo(holder.workerId);
        assertThat(pidsIn(pids)).as("one execution per attempt").hasSize(2);
    }

    @Test
    void aWorkerStoppedPastItsLeaseHasItsJobKilledBeforeTheSecondAttemptStarts() throws Exception {
        NodeProcess control = start("stop-control", "api,scheduler", FAST);
        NodeProcess frozen = start("stop-frozen", "worker",
                ClusterProcessIT.merge(FAST, Map.of("FORGEFLOW_LEASE_DURATION", "6s")));
        Path pids = dir.resolve("pids");
        String marker = marker();
        String jobId = submit(control, sleepsOnFirstAttempt(pids, marker));
        awaitTrue(Duration.ofSeconds(30), "the first attempt's four sleeps", () -> pidsIn(pids).size() == 1
                && liveWithArgument(marker).size() == 4);
        start("stop-rescuer", "worker", FAST);

        signal(frozen.pid(), "STOP");
        long stoppedAt = System.nanoTime();
        awaitTrue(Duration.ofSeconds(30), "every process of the first attempt gone",
                () -> liveWithArgument(marker).isEmpty());
        Instant gone = Instant.now();
        System.out.println("worker SIGSTOP: its job's process gone after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt) + " ms");

        awaitTrue(Duration.ofSeconds(60), "the run succeeded",
                () -> "succeeded".equals(latestRun(control, jobId).path("status").asText()));
        JsonNode attempts = attempts(control, jobId);
        assertThat(attempts).hasSize(2);
        Instant secondStarted = Instant.parse(attempts.get(1).get("started_at").asText());
        assertThat(secondStarted).as("the second attempt starts after the first process is gone (at %s)", gone)
                .isAfter(gone);
        assertThat(attempts.get(1).get("worker_id").asText()).isEqualTo("stop-rescuer");

        signal(frozen.pid(), "CONT");
        awaitTrue(Duration.ofSeconds(30), "the woken worker is fenced, not acknowledged",
                () -> attempts(control, jobId).size() == 2
                        && "succeeded".equals(latestRun(control, jobId).path("status").asText()));
        assertThat(pidsIn(pids)).hasSize(2);
    }

    /**
     * Records each attempt in {@code pids}; the first attempt only sleeps 60 s in four processes whose argv holds
     * {@code marker}: one under GNU timeout (its own process group), one in a new session, one double-forked, and the
     * shell's own.
     */
    static String sleepsOnFirstAttempt(Path pids, String marker) {
        String file = "'" + pids + "'";
        String sleep = "sleep 60 " + marker;
        return "{\"name\": \"sleeper\", \"executor\": \"shell\", \"max_attempts\": 3, \"payload\": {\"command\": "
                + json("echo $$ >> " + file + "; if [ \"$(wc -l < " + file + ")\" -eq 1 ]; then "
                + "timeout 60 sh -c '" + sleep + "' & setsid sh -c '" + sleep + "' & sh -c '(" + sleep + " &) &'; "
                + sleep + "; fi; echo done") + "}}";
    }

    /** {@code 0.0} and ten random digits: an extra duration for GNU sleep that marks a test's processes. */
    static String marker() {
        return "0.0" + String.format("%010d", (long) (new java.security.SecureRandom().nextDouble() * 1e10));
    }

    /** Live processes (host pids) with {@code argument} as a whole argument of their argv. */
    static List<Long> liveWithArgument(String argument) {
        List<Long> pids = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String argv = new String(Files.readAllBytes(entry.resolve("cmdline")),
                            java.nio.charset.StandardCharsets.UTF_8);
                    if (List.of(argv.split("\0")).contains(argument) && !isGone(Long.parseLong(name))) {
                        pids.add(Long.parseLong(name));
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return pids;
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static void signal(long pid, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        kill.waitFor(10, TimeUnit.SECONDS);
    }

    static boolean isGone(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state == 'Z' || state == 'X';
        } catch (IOException e) {
            return true;
        }
    }

    static List<Long> pidsIn(Path file) {
        try {
            if (!Files.exists(file)) {
                return List.of();
            }
            return Files.readAllLines(file).stream().filter(l -> l.matches("\\d+")).map(Long::valueOf)
                    .collect(Collectors.toList());
        } catch (IOException e) {
            return List.of();
        }
    }

    List<Instant> ticks(String jobId) {
        return pg.jdbi().withHandle(h -> h.select("SELECT scheduled_for FROM runs WHERE job_id = CAST(? AS uuid) "
                + "ORDER BY 1", jobId)
                .mapTo(Instant.class).list());
    }

    /** When the first run scheduled after {@code after} was created, or null. */
    Instant firstTickCreatedAfter(String jobId, Instant after) {
        return pg.jdbi().withHandle(h -> h.select("SELECT min(created_at) FROM runs WHERE job_id = CAST(? AS uuid) "
                + "AND scheduled_for > ?", jobId, after).mapTo(Instant.class).findOne().orElse(null));
    }

    NodeProcess awaitLeader(List<NodeProcess> candidates) throws Exception {
        NodeProcess[] found = new NodeProcess[1];
        awaitTrue(Duration.ofSeconds(30), "one leader", () -> {
            JsonNode items = json.readTree(get(candidates.get(0), "/api/nodes")).get("items");
            List<NodeProcess> leaders = new ArrayList<>();
            for (JsonNode n : items) {
                if (n.get("leader").asBoolean()) {
                    candidates.stream().filter(c -> c.workerId.equals(n.get("worker_id").asText()))
                            .forEach(leaders::add);
                }
            }
            found[0] = leaders.size() == 1 ? leaders.get(0) : null;
            return found[0] != null;
        });
        return found[0];
    }

    String submit(NodeProcess node, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.url("/api/jobs")))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("id").asText();
    }

    String get(NodeProcess node, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(node.url(path))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    JsonNode latestRun(NodeProcess node, String jobId) throws Exception {
        JsonNode items = json.readTree(get(node, "/api/runs?job_id=" + jobId)).get("items");
        return items.size() == 0 ? json.createObjectNode() : items.get(0);
    }

    JsonNode attempts(NodeProcess node, String jobId) throws Exception {
        return json.readTree(get(node, "/api/runs/" + latestRun(node, jobId).get("id").asText())).get("attempts");
    }

    interface Check {
        boolean holds() throws Exception;
    }

    static void awaitTrue(Duration max, String what, Check check) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + max + " for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition with a deadline
        }
    }
}
