package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestPgBouncer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 46: nodes whose pool goes through PgBouncer in transaction mode (Debian's pgbouncer, started here on loopback),
 * with only the LISTEN session and the leader's on FORGEFLOW_DATABASE_SESSION_URL. REST, a workflow, cancel, the
 * SIGKILL of the scheduler leader holding a run (leadership fails over, the lease is recovered), and the count of
 * server connections: the pooler's, plus at most two per node.
 */
class PgBouncerProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final int POOL_SIZE = 6;
    static final Map<String, String> FAST = NodeProcess.FAST_LEASES;

    static TestPgBouncer pgbouncer;
    static Path dir;
    static int bouncerPort;
    static final List<NodeProcess> nodes = new ArrayList<>();

    @BeforeAll
    static void startPgBouncer() throws Exception {
        TestPgBouncer.requireOrSkip();
        pgbouncer = TestPgBouncer.start(pg, POOL_SIZE, 500, true, "60s");
        dir = pgbouncer.dir();
        bouncerPort = pgbouncer.port();
    }

    @AfterAll
    static void stop() throws Exception {
        for (NodeProcess node : nodes) {
            node.close();
        }
        if (pgbouncer != null) {
            pgbouncer.close();
        }
    }

    @AfterEach
    void stopNodes() throws Exception {
        for (NodeProcess node : nodes) {
            StoppedProcessesIT.signal(node.pid(), "CONT");
            node.close();
        }
        nodes.clear();
    }

    static NodeProcess start(String id, String roles) throws Exception {
        Map<String, String> env = new HashMap<>(FAST);
        env.put("FORGEFLOW_DATABASE_SESSION_URL", ClusterProcessIT.pgUrl());
        return start(id, roles, env);
    }

    /** A node behind PgBouncer with no session URL: it polls and leads by the lease row (a lease of 3 s). */
    static NodeProcess startWithoutSessions(String id, String roles) throws Exception {
        Map<String, String> env = new HashMap<>(FAST);
        env.put("FORGEFLOW_DATABASE_POOLING", "transaction");
        env.put("FORGEFLOW_LEADER_SESSION_TIMEOUT", LEASE.toMillis() + "ms");
        return start(id, roles, env);
    }

    static final Duration LEASE = Duration.ofSeconds(3);

    static NodeProcess start(String id, String roles, Map<String, String> env) throws Exception {
        URI uri = URI.create(pg.jdbcUrl().substring("jdbc:".length()));
        String credentials = "user=" + pg.user() + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        return start(id, roles, "jdbc:postgresql://127.0.0.1:" + bouncerPort + uri.getPath() + "?" + credentials, env);
    }

    static NodeProcess start(String id, String roles, String url, Map<String, String> env) throws Exception {
        NodeProcess node = NodeProcess.start(id, roles, url, env);
        nodes.add(node);
        return node;
    }

    @Test
    void aClusterBehindPgBouncerInTransactionModeKeepsEveryPromise() throws Exception {
        NodeProcess api = start("bouncer-api", "api");
        NodeProcess leader = start("bouncer-b", "scheduler,worker");
        NodeApi rest = new NodeApi(() -> api.port);
        assertThat(api.logText()).contains("pooled in transaction mode");
        assertThat(poolingOf(rest, "bouncer-api")).isEqualTo("transaction");
        JsonNode apiNode = nodeOf(rest, "bouncer-api");
        assertThat(apiNode.get("wake_ups").asText()).isEqualTo("notify");
        assertThat(apiNode.get("connections").get("sessions").asInt()).as("LISTEN").isEqualTo(1);
        assertThat(apiNode.get("connections").get("pool_max").asInt()).isEqualTo(8);
        awaitLeads(rest, "bouncer-b");
        JsonNode leaderNode = nodeOf(rest, "bouncer-b");
        assertThat(leaderNode.get("leadership").asText()).isEqualTo("advisory_lock");
        assertThat(leaderNode.get("leader_term").isNull()).isTrue();
        assertThat(leaderNode.get("connections").get("sessions").asInt()).as("LISTEN and the leader's lock")
                .isEqualTo(2);

        // REST round trip, and a workflow: the child runs after its parent, with its output
        String hello = rest.submit(shell("hello", "echo hello", 1));
        assertThat(rest.awaitRun(hello, NodeApi.status("succeeded")).get("output").asText()).contains("hello");
        java.net.http.HttpResponse<String> created = rest.send("POST", "/api/batches", """
                {"jobs": [
                  {"ref": "a", "name": "extract", "executor": "shell", "payload": {"command": "echo a"}},
                  {"ref": "b", "name": "load", "executor": "shell", "payload": {"command": "echo b"}, "depends_on": ["a"]}
                ]}""");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode batch = rest.json.readTree(created.body());
        assertThat(batch.get("job_ids")).hasSize(2);
        for (JsonNode job : batch.get("job_ids")) {
            rest.awaitRun(job.asText(), NodeApi.status("succeeded"));
        }

        // cancel reaches a running run's worker
        String sleeper = rest.submit(shell("to-cancel", "sleep 30", 1));
        JsonNode running = rest.awaitRun(sleeper, NodeApi.status("running"));
        assertThat(rest.send("POST", "/api/runs/" + running.get("id").asText() + "/cancel", "").statusCode())
                .isEqualTo(200);
        rest.awaitRun(sleeper, NodeApi.status("cancelled"));

        // the only scheduler (the leader) holds a run; a second starts; SIGKILL of the first: the second leads and
        // runs it again once its lease has expired
        Path marks = Files.createDirectories(dir.resolve("marks"));
        Files.setPosixFilePermissions(marks, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path first = marks.resolve("first-attempt");
        // the first attempt outlives the kill; the next one ends at once
        String held = rest.submit(shell("held", "if [ -e " + first + " ]; then echo again; else touch " + first
                + "; sleep 120; fi", 3));
        assertThat(rest.awaitRun(held, NodeApi.status("running")).get("worker_id").asText()).isEqualTo("bouncer-b");
        NodeProcess second = start("bouncer-c", "scheduler,worker");
        assertConnections(3);
        leader.kill();
        JsonNode recovered = rest.awaitRun(held, NodeApi.status("succeeded"), Duration.ofSeconds(60));
        assertThat(recovered.get("worker_id").asText()).isEqualTo("bouncer-c");
        assertThat(recovered.get("output").asText()).contains("again");
        JsonNode attempts = rest.read("/api/runs/" + recovered.get("id").asText()).get("attempts");
        assertThat(attempts).as(attempts.toString()).hasSize(2);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!leads(rest, "bouncer-c") && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        assertThat(leads(rest, "bouncer-c")).as("the second scheduler leads").isTrue();
        assertThat(second.isAlive()).isTrue();

        // a scheduler without a session URL would lead by the lease beside the advisory lock: it refuses to start
        assertThatThrownBy(() -> startWithoutSessions("bouncer-mixed", "scheduler"))
                .hasMessageContaining("scheduler node bouncer-c campaigns by advisory_lock and this one would by lease");
    }

    @Test
    void withoutSessionConnectionsNodesPollAndLeadByATermedLeaseThatFencesAStalledLeader() throws Exception {
        NodeProcess api = startWithoutSessions("lease-api", "api");
        NodeProcess first = startWithoutSessions("lease-b", "scheduler,worker");
        NodeApi rest = new NodeApi(() -> api.port);
        assertThat(api.logText()).contains("without session connections");
        JsonNode apiNode = nodeOf(rest, "lease-api");
        assertThat(apiNode.get("database_pooling").asText()).isEqualTo("transaction");
        assertThat(apiNode.get("wake_ups").asText()).isEqualTo("polling");
        assertThat(apiNode.get("leadership").isNull()).as("no scheduler role").isTrue();
        assertThat(apiNode.get("connections").get("pool_max").asInt()).as("api: 8").isEqualTo(8);
        assertThat(apiNode.get("connections").get("sessions").asInt()).isZero();
        long firstTerm = awaitLeaderTerm(rest, "lease-b");
        JsonNode leaderNode = nodeOf(rest, "lease-b");
        assertThat(leaderNode.get("leadership").asText()).isEqualTo("lease");
        assertThat(leaderNode.get("connections").get("pool_max").asInt()).as("scheduler 4 + worker 4 + 16 / 2")
                .isEqualTo(16);
        assertThat(leaderNode.get("connections").get("sessions").asInt()).isZero();
        assertThat(leaderNode.get("connections").get("pool_in_use").asInt()).isBetween(0, 16);
        assertNoSessionConnections();

        // REST round trip, a workflow, cancel: the worker is woken by polling only
        String hello = rest.submit(shell("hello", "echo hello", 1));
        assertThat(rest.awaitRun(hello, NodeApi.status("succeeded")).get("output").asText()).contains("hello");
        java.net.http.HttpResponse<String> created = rest.send("POST", "/api/batches", """
                {"jobs": [
                  {"ref": "a", "name": "extract", "executor": "shell", "payload": {"command": "echo a"}},
                  {"ref": "b", "name": "load", "executor": "shell", "payload": {"command": "echo b"}, "depends_on": ["a"]}
                ]}""");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        for (JsonNode job : rest.json.readTree(created.body()).get("job_ids")) {
            rest.awaitRun(job.asText(), NodeApi.status("succeeded"));
        }
        String sleeper = rest.submit(shell("to-cancel", "sleep 30", 1));
        JsonNode running = rest.awaitRun(sleeper, NodeApi.status("running"));
        assertThat(rest.send("POST", "/api/runs/" + running.get("id").asText() + "/cancel", "").statusCode())
                .isEqualTo(200);
        rest.awaitRun(sleeper, NodeApi.status("cancelled"));

        // SIGKILL of the leader holding a run: the second takes the lease over in a larger term and recovers the run
        Path marks = Files.createDirectories(dir.resolve("lease-marks"));
        Files.setPosixFilePermissions(marks, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path mark = marks.resolve("first-attempt");
        String held = rest.submit(shell("held", "if [ -e " + mark + " ]; then echo again; else touch " + mark
                + "; sleep 120; fi", 3));
        assertThat(rest.awaitRun(held, NodeApi.status("running")).get("worker_id").asText()).isEqualTo("lease-b");
        NodeProcess second = startWithoutSessions("lease-c", "scheduler,worker");
        long killedAt = System.nanoTime();
        first.kill();
        long secondTerm = awaitLeaderTerm(rest, "lease-c");
        System.out.println("lease failover after SIGKILL: " + (System.nanoTime() - killedAt) / 1_000_000 + " ms");
        assertThat(secondTerm).as("the new leader's term").isGreaterThan(firstTerm);
        assertThat(lease()).isEqualTo("lease-c:" + secondTerm);
        JsonNode recovered = rest.awaitRun(held, NodeApi.status("succeeded"), Duration.ofSeconds(60));
        assertThat(recovered.get("worker_id").asText()).isEqualTo("lease-c");
        assertThat(recovered.get("output").asText()).contains("again");
        assertThat(rest.read("/api/runs/" + recovered.get("id").asText()).get("attempts")).hasSize(2);

        // a stalled leader (SIGSTOP) past its lease: a third takes over in the next term; woken, the old one is fenced
        NodeProcess third = startWithoutSessions("lease-d", "scheduler,worker");
        StoppedProcessesIT.signal(second.pid(), "STOP");
        long stoppedAt = System.nanoTime();
        long thirdTerm = awaitLeaderTerm(rest, "lease-d");
        System.out.println("lease takeover from a stopped leader: " + (System.nanoTime() - stoppedAt) / 1_000_000
                + " ms");
        assertThat(thirdTerm).isGreaterThan(secondTerm);
        StoppedProcessesIT.signal(second.pid(), "CONT");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!second.logText().contains("was taken over") && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertThat(second.logText()).as("the woken leader's next campaign finds its term over")
                .contains("stepping down: the scheduler lease (term " + secondTerm + ") was taken over");
        Thread.sleep(2_000); // a few of its heartbeats and scheduler ticks
        assertThat(lease()).as("the old term's holder took nothing back").isEqualTo("lease-d:" + thirdTerm);
        JsonNode old = nodeOf(rest, "lease-c");
        assertThat(old.get("leader").asBoolean()).isFalse();
        assertThat(old.get("leader_term").isNull()).isTrue();
        assertThat(leads(rest, "lease-d")).isTrue();
        assertThat(third.isAlive() && second.isAlive()).isTrue();
        assertNoSessionConnections();
    }

    @Test
    void withoutASessionUrlNothingMigratesThroughThePoolerAndTheWayOutIsNamed() throws Exception {
        String empty = ((org.postgresql.ds.PGSimpleDataSource) pg.createEmptyDatabase()).getDatabaseName();
        String credentials = "user=" + pg.user() + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        String throughPooler = "jdbc:postgresql://127.0.0.1:" + bouncerPort + "/" + empty + "?" + credentials;
        Map<String, String> env = new HashMap<>(FAST);
        env.put("FORGEFLOW_DATABASE_POOLING", "transaction");

        assertThatThrownBy(() -> start("unmigrated", "api,scheduler,worker", throughPooler, env))
                .hasMessageContaining("the database is not migrated")
                .hasMessageContaining("java -jar forgeflow.jar db migrate");

        ProcessBuilder migrate = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
                NodeProcess.JAR.toString(), "db", "migrate").redirectErrorStream(true);
        migrate.environment().keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        migrate.environment().put("FORGEFLOW_DATABASE_URL", throughPooler);
        migrate.environment().put("FORGEFLOW_DATABASE_POOLING", "transaction");
        Process p = migrate.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isNotZero();
        assertThat(out).contains("the db commands need a direct connection");
        assertThat(out).doesNotContain("Liquibase: Update has been successful");
    }

    /** The scheduler's lease row: holder:term. */
    static String lease() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT holder || ':' || term FROM leader_lease "
                + "WHERE name = 'scheduler'").mapTo(String.class).one());
    }

    /** Nothing holds session state: no LISTEN or leader session, no scheduler advisory lock. */
    static void assertNoSessionConnections() {
        int direct = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity "
                + "WHERE datname = current_database() AND application_name IN ('notifications', "
                + "'scheduler leadership', 'forgeflow migrations')").mapTo(Integer.class).one());
        assertThat(direct).as("direct sessions").isZero();
        long key = io.forgeflow.adapter.postgres.AdvisoryLockLeaderElection.LOCK_KEY;
        int locks = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                + "AND classid::bigint = :high AND objid::bigint = :low AND objsubid = 1")
                .bind("high", key >>> 32).bind("low", key & 0xFFFF_FFFFL).mapTo(Integer.class).one());
        assertThat(locks).as("the scheduler's advisory lock is held by nobody").isZero();
    }

    /** Waits until {@code id} leads, then returns its lease term from /api/nodes. */
    static long awaitLeaderTerm(NodeApi rest, String id) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        do {
            JsonNode node = nodeOf(rest, id);
            if (node.path("leader").asBoolean() && node.path("leader_term").canConvertToLong()
                    && !node.path("leader_term").isNull()) {
                return node.get("leader_term").asLong();
            }
            Thread.sleep(100);
        } while (System.nanoTime() < end);
        throw new AssertionError(id + " did not lead: " + rest.read("/api/nodes"));
    }

    static JsonNode nodeOf(NodeApi rest, String id) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // its first heartbeat may be on its way
        do {
            for (JsonNode node : rest.read("/api/nodes").get("items")) {
                if (node.get("worker_id").asText().equals(id)) {
                    return node;
                }
            }
            Thread.sleep(100);
        } while (System.nanoTime() < end);
        throw new AssertionError(id + " is not listed in /api/nodes");
    }

    /** Server connections: the pooler's pool, plus at most LISTEN and the leader's session per node. */
    static void assertConnections(int nodeCount) {
        int connections = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity "
                + "WHERE datname = current_database() AND pid <> pg_backend_pid()").mapTo(Integer.class).one());
        int direct = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity "
                + "WHERE datname = current_database() AND application_name IN ('notifications', "
                + "'scheduler leadership')").mapTo(Integer.class).one());
        assertThat(direct).as("direct sessions").isLessThanOrEqualTo(2 * nodeCount);
        assertThat(connections).as("every other connection comes through the pooler")
                .isLessThanOrEqualTo(POOL_SIZE + 2 * nodeCount);
    }

    static String poolingOf(NodeApi rest, String id) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // its first heartbeat may be on its way
        do {
            for (JsonNode node : rest.read("/api/nodes").get("items")) {
                if (node.get("worker_id").asText().equals(id)) {
                    return node.get("database_pooling").asText();
                }
            }
            Thread.sleep(100);
        } while (System.nanoTime() < end);
        throw new AssertionError(id + " is not listed in /api/nodes");
    }

    static void awaitLeads(NodeApi rest, String id) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!leads(rest, id) && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertThat(leads(rest, id)).as(id + " leads").isTrue();
    }

    static boolean leads(NodeApi rest, String id) throws Exception {
        for (JsonNode node : rest.read("/api/nodes").get("items")) {
            if (node.get("worker_id").asText().equals(id) && node.path("leader").asBoolean()) {
                return true;
            }
        }
        return false;
    }

    static String shell(String name, String command, int attempts) {
        return "{\"name\": \"" + name + "\", \"executor\": \"shell\", \"max_attempts\": " + attempts
                + ", \"payload\": {\"command\": \"" + command + "\"}}";
    }
}
