package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database goes away and comes back under a steady load of short shell jobs submitted over REST to two nodes, on a
 * PostgreSQL cluster of the test's own ({@link OwnPostgres}, never the shared server): (a) a fast shutdown, 25 s down,
 * a start; (b) every other backend terminated every 0.5 s for 30 s. No submission is answered 500 (503
 * {@code unavailable} with {@code Retry-After} is the outage's answer), every job accepted with 201 runs exactly once
 * (each appends its token to a file), nothing stays pending or running, and both nodes are ready again without a
 * restart, within 5 s of the database's return.
 */
class DatabaseOutageProcessIT {
    static final Duration DOWN = Duration.ofSeconds(25);
    static final Duration TERMINATING = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    OwnPostgres pg;
    final List<NodeProcess> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final ObjectMapper json = new ObjectMapper();

    /** Accepted (201) tokens and their job ids. */
    final ConcurrentMap<String, String> accepted = new ConcurrentHashMap<>();
    final ConcurrentMap<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    final List<String> serverErrors = new CopyOnWriteArrayList<>();
    final AtomicInteger connectionFailures = new AtomicInteger();
    final AtomicInteger retryAfterMissing = new AtomicInteger();
    final AtomicBoolean loading = new AtomicBoolean();

    @AfterEach
    void stop() throws Exception {
        loading.set(false);
        for (NodeProcess node : nodes) {
            node.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void submissionsAnswer503NeverA500AndEveryAcceptedJobRunsOnceThroughARestartAndKilledConnections()
            throws Exception {
        Path bin = OwnPostgres.binaries().orElse(null);
        Assumptions.assumeTrue(bin != null, "no /usr/lib/postgresql/*/bin/initdb on this machine");
        pg = OwnPostgres.start(bin);
        Path executions = dir.resolve("executions");
        Files.createFile(executions);
        // the first node migrates the empty database; the second finds it migrated
        nodes.add(NodeProcess.start("outage-a", "api,scheduler,worker", pg.url(), Map.of()));
        nodes.add(NodeProcess.start("outage-b", "api,scheduler,worker", pg.url(), Map.of()));
        List<Long> pids = nodes.stream().map(NodeProcess::pid).toList();

        List<Thread> load = startLoad(executions);
        awaitTrue(Duration.ofSeconds(30), "the load's first jobs ran", () -> lines(executions).size() >= 10);
        int beforeRestart = lines(executions).size();
        long steadyStart = System.nanoTime();
        awaitTrue(Duration.ofSeconds(30), "completions at the steady rate",
                () -> lines(executions).size() >= beforeRestart + 20);
        double steadyRate = rate(beforeRestart, lines(executions).size(), steadyStart);

        // (a) a fast shutdown, 25 s down, a start
        pg.stopFast();
        long downAt = System.nanoTime();
        for (NodeProcess node : nodes) {
            awaitTrue(Duration.ofSeconds(15), node.workerId + " not ready while the database is down",
                    () -> readyz(node) == 503);
        }
        long left = DOWN.toNanos() - (System.nanoTime() - downAt);
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left); // the outage itself: the load goes on meanwhile
        }
        pg.startServer();
        long upAt = System.nanoTime();
        for (NodeProcess node : nodes) {
            awaitTrue(Duration.ofSeconds(5).minusNanos(System.nanoTime() - upAt),
                    node.workerId + " ready within 5 s of the database's return", () -> readyz(node) == 200);
        }
        System.out.printf("database restart: nodes ready %d ms after it was back; answers so far %s%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upAt), statuses);
        int afterRestart = lines(executions).size();
        long recoveredStart = System.nanoTime();
        awaitTrue(Duration.ofSeconds(60), "completions after the restart",
                () -> lines(executions).size() >= afterRestart + 20);
        double recoveredRate = rate(afterRestart, lines(executions).size(), recoveredStart);

        // (b) every other backend terminated every 0.5 s for 30 s
        int terminated = terminateBackends(TERMINATING, Duration.ofMillis(500));
        for (NodeProcess node : nodes) {
            awaitTrue(Duration.ofSeconds(15), node.workerId + " ready after the killed connections",
                    () -> readyz(node) == 200);
        }

        loading.set(false);
        for (Thread t : load) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        System.out.printf("answers: %s, connection failures %d, backends terminated %d, accepted %d; completions/s "
                        + "%.1f before, %.1f after the restart%n", statuses, connectionFailures.get(), terminated,
                accepted.size(), steadyRate, recoveredRate);

        assertThat(serverErrors).as("answers 500 (the outage must answer 503)").isEmpty();
        assertThat(retryAfterMissing.get()).as("503 answers without Retry-After").isZero();
        assertThat(statuses.getOrDefault(503, new AtomicInteger()).get()).as("the outage was seen as 503s")
                .isPositive();
        awaitTrue(Duration.ofSeconds(90), "every accepted job ran", () -> lines(executions).keySet()
                .containsAll(accepted.keySet()));
        awaitTrue(Duration.ofSeconds(90), "nothing pending or running", () -> unfinishedRuns() == 0);
        Map<String, Long> counts = lines(executions);
        Map<String, Long> twice = new TreeMap<>();
        counts.forEach((token, n) -> {
            if (n > 1) {
                twice.put(token, n);
            }
        });
        assertThat(twice).as("jobs executed more than once; their attempts:\n" + attempts(twice.keySet()))
                .isEmpty();
        for (int i = 0; i < nodes.size(); i++) {
            assertThat(nodes.get(i).isAlive()).as(nodes.get(i).workerId + " still running").isTrue();
            assertThat(nodes.get(i).pid()).as("not restarted").isEqualTo(pids.get(i));
            assertThat(readyz(nodes.get(i))).isEqualTo(200);
        }
    }

    /** One submitter per node, about ten submissions a second each, until {@link #loading} is cleared. */
    List<Thread> startLoad(Path executions) {
        loading.set(true);
        List<Thread> threads = new ArrayList<>();
        AtomicInteger sequence = new AtomicInteger();
        for (NodeProcess node : nodes) {
            Thread t = new Thread(() -> {
                while (loading.get()) {
                    String token = "t" + sequence.incrementAndGet();
                    submit(node, token, executions);
                    try {
                        Thread.sleep(100); // pacing of the load, not a wait for an outcome
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "load-" + node.workerId);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        return threads;
    }

    void submit(NodeProcess node, String token, Path executions) {
        String body = "{\"name\": \"outage-" + token + "\", \"executor\": \"shell\", \"max_attempts\": 5, "
                + "\"payload\": {\"command\": \"echo " + token + " >> " + executions + "\"}}";
        HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(URI.create(node.url("/api/jobs"))).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            connectionFailures.incrementAndGet();
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
        if (r.statusCode() == 201) {
            try {
                accepted.put(token, json.readTree(r.body()).get("id").asText());
            } catch (IOException e) {
                serverErrors.add("201 with a body that is not a job: " + r.body());
            }
        } else if (r.statusCode() >= 500 && r.statusCode() != 503) {
            serverErrors.add(r.statusCode() + " " + r.body());
        } else if (r.statusCode() == 503 && r.headers().firstValue("Retry-After").isEmpty()) {
            retryAfterMissing.incrementAndGet();
        }
    }

    /** Ends every other client backend every {@code every} for {@code during}; returns how many it ended. */
    int terminateBackends(Duration during, Duration every) throws Exception {
        int total = 0;
        long end = System.nanoTime() + during.toNanos();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl()); Statement s = c.createStatement()) {
            while (System.nanoTime() < end) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                        + "FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")) {
                    rs.next();
                    total += rs.getInt(1);
                }
                TimeUnit.MILLISECONDS.sleep(every.toMillis()); // the fault's own rhythm
            }
        }
        return total;
    }

    long unfinishedRuns() throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM forgeflow.runs WHERE status IN ('pending', 'running')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The attempts of the jobs with these tokens, as evidence when one ran twice. */
    String attempts(java.util.Set<String> tokens) {
        if (tokens.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
             java.sql.PreparedStatement s = c.prepareStatement("SELECT j.name, a.attempt, a.worker_id, a.outcome, "
                     + "a.started_at, a.finished_at, a.error FROM forgeflow.run_attempts a "
                     + "JOIN forgeflow.runs r ON r.id = a.run_id JOIN forgeflow.jobs j ON j.id = r.job_id "
                     + "WHERE j.name = ANY (?) ORDER BY j.name, a.attempt")) {
            s.setArray(1, c.createArrayOf("text", tokens.stream().map(t -> "outage-" + t).toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.append(String.format("  %s attempt %d on %s: %s (%s .. %s) %s%n", rs.getString(1),
                            rs.getInt(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6),
                            rs.getString(7)));
                }
            }
        } catch (Exception e) {
            out.append("(attempts unreadable: ").append(e).append(')');
        }
        return out.toString();
    }

    int readyz(NodeProcess node) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(node.url("/readyz"))).timeout(Duration.ofSeconds(3))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static Map<String, Long> lines(Path file) {
        try {
            return Files.readAllLines(file).stream().filter(l -> !l.isBlank())
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static double rate(int from, int to, long sinceNanos) {
        return (to - from) / Math.max(0.001, (System.nanoTime() - sinceNanos) / 1e9);
    }

    interface Check {
        boolean holds() throws Exception;
    }

    static void awaitTrue(Duration max, String what, Check check) throws Exception {
        long deadline = System.nanoTime() + Math.max(0, max.toNanos());
        while (true) {
            if (check.holds()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + max.toMillis() + " ms waiting for: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
