package io.forgeflow.bench;

import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The scale test's driver (scripts/scale-test.sh), one subcommand per step:
 *
 * <pre>
 * sample DIRECT_JDBC_URL DATABASE ROLE STOP_FILE   max backends of ROLE in DATABASE in pg_stat_activity (what
 *                                                  PgBouncer opened: the driver connects as another role) and the
 *                                                  load average, sampled every 100 ms until STOP_FILE exists
 * idle   DIRECT_JDBC_URL DATABASE SECONDS          what the workers cost with nothing to do: the database's
 *                                                  transactions per second and the machine's busy CPU
 * drain  API_URLS DIRECT_JDBC_URL RUNS             RUNS no-op runs in batches of 1,000 through the api nodes; waits
 *                                                  until every one is terminal
 * steady API_URLS DIRECT_JDBC_URL RATE SECONDS [POOLED_JDBC_URL]
 *                                                  an open loop at RATE per second: POST /api/jobs over the api
 *                                                  nodes, or with POOLED_JDBC_URL forgeflow.enqueue() (client-jdbc)
 *                                                  through PgBouncer; waits until every run is terminal; pickup
 *                                                  latency (the claim's start minus the run's due time, both the
 *                                                  database's clock)
 * check  DIRECT_JDBC_URL EXECUTIONS_DIR            executions per run id (the workers' files) against the runs and
 *                                                  attempts in the database: exit 1 when one is lost or ran twice
 * </pre>
 *
 * API_URLS is a comma-separated list of {@code http://host:port}. The runs are jobs of executor {@code java}, handler
 * {@code scale-noop} ({@link ScaleWorkers}), named {@code scale-drain} and {@code scale-steady-<rate>}.
 */
public final class ScaleDriver {
    private static final String HANDLER_BODY = "\"executor\": \"java\", \"payload\": {\"handler\": \"scale-noop\"}";

    private ScaleDriver() {
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "" : args[0];
        int code = switch (command) {
            case "sample" -> sample(args[1], args[2], args[3], Path.of(args[4]));
            case "idle" -> idle(args[1], args[2], Integer.parseInt(args[3]));
            case "drain" -> drain(apis(args[1]), args[2], Integer.parseInt(args[3]));
            case "steady" -> steady(apis(args[1]), args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    args.length > 5 ? args[5] : null, args.length > 6 && "grouped".equals(args[6]));
            case "check" -> check(args[1], Path.of(args[2]));
            default -> {
                System.err.println("usage: ScaleDriver sample|drain|steady|check ... (see the class comment)");
                yield 2;
            }
        };
        System.exit(code);
    }

    private static List<URI> apis(String list) {
        List<URI> uris = new ArrayList<>();
        for (String s : list.split(",")) {
            uris.add(URI.create(s.trim()));
        }
        return uris;
    }

    private static int sample(String url, String database, String role, Path stop) throws Exception {
        int max = 0;
        long samples = 0;
        double maxLoad = 0;
        Map<String, Integer> maxByName = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement count = c.prepareStatement("SELECT coalesce(application_name, ''), count(*)::int "
                     + "FROM pg_stat_activity WHERE datname = ? AND usename = ? GROUP BY 1")) {
            count.setString(1, database);
            count.setString(2, role);
            while (!Files.exists(stop)) {
                int n = 0;
                Map<String, Integer> now = new HashMap<>();
                try (ResultSet rs = count.executeQuery()) {
                    while (rs.next()) {
                        n += rs.getInt(2);
                        now.put(rs.getString(1), rs.getInt(2));
                    }
                }
                if (n > max) {
                    max = n;
                    maxByName = now;
                }
                maxLoad = Math.max(maxLoad, loadAverage());
                samples++;
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }
        System.out.printf(Locale.ROOT, "server connections of the test (pg_stat_activity, %,d samples every 100 ms): "
                + "max %d %s; highest 1-minute load average %.2f%n", samples, max, maxByName, maxLoad);
        return 0;
    }

    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static int idle(String url, String database, int seconds) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement tx = c.prepareStatement("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                     + "WHERE datname = ?")) {
            tx.setString(1, database);
            long[] cpu0 = cpuTicks();
            long tx0 = single(tx);
            long t0 = System.nanoTime();
            LockSupport.parkNanos(Duration.ofSeconds(seconds).toNanos());
            long tx1 = single(tx);
            long[] cpu1 = cpuTicks();
            double took = (System.nanoTime() - t0) / 1e9;
            double busy = 100.0 * ((cpu1[0] - cpu1[1]) - (cpu0[0] - cpu0[1])) / Math.max(1, cpu1[0] - cpu0[0]);
            System.out.printf(Locale.ROOT, "idle: with nothing to run, %.0f database transactions/s and the machine's "
                    + "CPU %.0f %% busy over %d s (every process, not only this test's)%n", (tx1 - tx0) / took, busy,
                    seconds);
        }
        return 0;
    }

    private static long single(PreparedStatement st) throws SQLException {
        try (ResultSet rs = st.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The machine's CPU ticks from /proc/stat: total and idle (idle + iowait). */
    private static long[] cpuTicks() throws IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length; i++) {
            total += Long.parseLong(f[i]);
        }
        return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
    }

    private static int drain(List<URI> apis, String url, int runs) throws Exception {
        int batch = 1_000;
        int batches = (runs + batch - 1) / batch;
        AtomicLong next = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long t0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (URI api : apis) {
            Thread t = new Thread(() -> {
                try (PlainHttpClient http = new PlainHttpClient(api.getHost(), api.getPort(), 60_000)) {
                    for (long b = next.getAndIncrement(); b < batches; b = next.getAndIncrement()) {
                        int size = (int) Math.min(batch, runs - b * batch);
                        StringBuilder body = new StringBuilder("{\"name\": \"scale-drain-" + b + "\", \"jobs\": [");
                        for (int i = 0; i < size; i++) {
                            body.append(i == 0 ? "" : ", ").append("{\"name\": \"scale-drain\", ").append(HANDLER_BODY)
                                    .append('}');
                        }
                        body.append("]}");
                        int status = http.send(PlainHttpClient.jsonPost(api.getHost(), api.getPort(), "/api/batches",
                                body.toString()));
                        if (status != 201) {
                            System.err.println("drain: POST /api/batches answered " + status);
                            failed.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    System.err.println("drain: " + e);
                    failed.incrementAndGet();
                }
            }, "drain-submit-" + api.getPort());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        double submitted = (System.nanoTime() - t0) / 1e9;
        if (failed.get() > 0) {
            System.out.println("drain: " + failed.get() + " batches failed");
            return 1;
        }
        long open = awaitTerminal(url, "scale-drain", Duration.ofMinutes(5));
        double took = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "drain: %,d runs submitted in %.1f s (batches of %,d over %d api nodes), all "
                        + "terminal after %.1f s: %.0f runs/s%s%n", runs, submitted, batch, apis.size(), took,
                runs / took, open == 0 ? "" : "; " + open + " NOT terminal after 5 minutes");
        return open == 0 ? 0 : 1;
    }

    /** Waits until no run of the jobs named {@code name} is pending or running; returns how many still are. */
    private static long awaitTerminal(String url, String name, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement open = c.prepareStatement("SELECT count(*) FROM forgeflow.runs r "
                     + "JOIN forgeflow.jobs j ON j.id = r.job_id WHERE j.name = ? AND r.status IN ('pending', 'running')")) {
            open.setString(1, name);
            while (true) {
                long n;
                try (ResultSet rs = open.executeQuery()) {
                    rs.next();
                    n = rs.getLong(1);
                }
                if (n == 0 || System.nanoTime() > deadline) {
                    return n;
                }
                LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            }
        }
    }

    private static int steady(List<URI> apis, String url, int rate, int seconds, String pooledUrl, boolean grouped)
            throws Exception {
        int total = rate * seconds;
        String name = "scale-steady-" + rate; // a job name per phase: each phase's runs are measured apart
        String via = pooledUrl == null ? "POST /api/jobs over " + apis.size() + " api nodes"
                : grouped ? "forgeflow.enqueue() (client-jdbc) through PgBouncer, what is due committed together"
                : "forgeflow.enqueue() (client-jdbc) through PgBouncer";
        // an open loop: enough producers for requests of tens of ms on a busy machine; grouped, each producer
        // commits every run due by the time it starts a transaction in that one transaction (as the nodes' group
        // commit does), so a commit per run does not bound the rate
        int producers = grouped ? 4 : 12 * apis.size();
        long interval = 1_000_000_000L / rate;
        long t0 = System.nanoTime() + Duration.ofMillis(100).toNanos();
        AtomicLong next = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong late = new AtomicLong();
        long[] submitNanos = new long[total];
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            URI api = apis.get(p % apis.size());
            Thread t = new Thread(() -> {
                byte[] request = PlainHttpClient.jsonPost(api.getHost(), api.getPort(), "/api/jobs",
                        "{\"name\": \"" + name + "\", " + HANDLER_BODY + "}");
                JobRequest job = JobRequest.handler(name, "scale-noop", null).build();
                try (PlainHttpClient http = new PlainHttpClient(api.getHost(), api.getPort(), 30_000);
                     Connection c = pooledUrl == null ? null : DriverManager.getConnection(pooledUrl)) {
                    while (grouped) {
                        long first = next.get();
                        if (first >= total) {
                            break;
                        }
                        long wait = t0 + first * interval - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                            continue;
                        }
                        long dueBy = Math.min(total, (System.nanoTime() - t0) / interval + 1);
                        if (!next.compareAndSet(first, dueBy)) {
                            continue; // another producer took them
                        }
                        try {
                            c.setAutoCommit(false);
                            for (long i = first; i < dueBy; i++) {
                                ForgeFlowJdbc.enqueue(c, job);
                            }
                            c.commit();
                        } catch (SQLException e) {
                            failed.addAndGet(dueBy - first);
                            c.rollback();
                        }
                        long now = System.nanoTime();
                        for (long i = first; i < dueBy; i++) {
                            submitNanos[(int) i] = now - (t0 + i * interval);
                            if (now - (t0 + i * interval) > 100_000_000L) {
                                late.incrementAndGet();
                            }
                        }
                    }
                    for (long i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                        long intended = t0 + i * interval;
                        long wait;
                        while ((wait = intended - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        if (System.nanoTime() - intended > 100_000_000L) {
                            late.incrementAndGet();
                        }
                        try {
                            if (c != null) {
                                ForgeFlowJdbc.enqueue(c, job); // auto-commit: one transaction
                            } else if (http.send(request) != 201) {
                                failed.incrementAndGet();
                            }
                        } catch (IOException | SQLException e) {
                            failed.incrementAndGet();
                        }
                        submitNanos[(int) i] = System.nanoTime() - intended;
                    }
                } catch (SQLException e) {
                    System.err.println("steady: " + e);
                    failed.incrementAndGet();
                }
            }, "steady-" + p);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        double took = (System.nanoTime() - t0) / 1e9;
        long open = awaitTerminal(url, name, Duration.ofMinutes(2));
        Stats submit = Stats.of(submitNanos, total);
        System.out.printf(Locale.ROOT, "steady " + rate + "/s: %,d runs submitted in %.1f s by " + via
                        + " (%.0f/s intended %d/s; %d producers, "
                        + "%,d started more than 100 ms late, %,d failed); submission latency from the intended time "
                        + "p50 %.1f ms, p99 %.1f ms%n", total, took, total / took, rate, producers, late.get(),
                failed.get(), submit.p50(), submit.p99());
        // pickup latency: the first attempt's start (the claim's clock_timestamp()) minus the run's due time; the
        // first 10 % of the runs are the warm-up and not counted
        long[] pickup;
        try (Connection c = DriverManager.getConnection(url); PreparedStatement st = c.prepareStatement(
                "SELECT (extract(epoch FROM a.started_at - r.scheduled_for) * 1e9)::bigint "
                        + "FROM forgeflow.runs r JOIN forgeflow.jobs j ON j.id = r.job_id "
                        + "JOIN forgeflow.run_attempts a ON a.run_id = r.id AND a.attempt = 1 "
                        + "WHERE j.name = ? ORDER BY r.scheduled_for OFFSET ?")) {
            st.setString(1, name);
            st.setLong(2, total / 10);
            List<Long> values = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getLong(1));
                }
            }
            pickup = values.stream().mapToLong(Long::longValue).toArray();
        }
        Stats latency = Stats.of(pickup, pickup.length);
        System.out.printf(Locale.ROOT, "steady " + rate + "/s: pickup latency (claim start minus due time) over %,d runs after the "
                        + "first %,d: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (goal p99 < 100 ms: %s)%s%n",
                latency.count(), total / 10, latency.p50(), latency.p95(), latency.p99(), latency.max(),
                latency.p99() < 100 ? "met" : "NOT met", open == 0 ? "" : "; " + open + " runs NOT terminal");
        return open == 0 && failed.get() == 0 ? 0 : 1;
    }

    private static int check(String url, Path executions) throws Exception {
        Map<String, Integer> executed = new HashMap<>();
        long lines = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(executions)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".executions")).sorted().toList();
        }
        for (Path f : files) {
            for (String id : Files.readAllLines(f)) {
                if (!id.isBlank()) {
                    executed.merge(id.trim(), 1, Integer::sum);
                    lines++;
                }
            }
        }
        long twice = executed.values().stream().filter(n -> n > 1).count();
        long runs = 0;
        long lost = 0;
        long notSucceeded = 0;
        long extraAttempts = 0;
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT r.id::text, r.status, (SELECT count(*) FROM forgeflow.run_attempts a "
                     + "WHERE a.run_id = r.id) FROM forgeflow.runs r JOIN forgeflow.jobs j ON j.id = r.job_id "
                     + "WHERE j.name = 'scale-drain' OR j.name LIKE 'scale-steady-%'")) {
            while (rs.next()) {
                runs++;
                String id = rs.getString(1);
                if (!executed.containsKey(id)) {
                    lost++;
                    if (lost <= 5) {
                        System.out.println("check: run " + id + " (" + rs.getString(2) + ") never executed");
                    }
                }
                if (!"succeeded".equals(rs.getString(2))) {
                    notSucceeded++;
                }
                extraAttempts += Math.max(0, rs.getLong(3) - 1);
            }
        }
        executed.entrySet().stream().filter(e -> e.getValue() > 1).limit(5)
                .forEach(e -> System.out.println("check: run " + e.getKey() + " executed " + e.getValue() + " times"));
        long unknown = executed.size() - (runs - lost);
        System.out.printf(Locale.ROOT, "check: %,d runs in the database, %,d executions in %d worker JVMs' files; "
                        + "lost %,d, executed twice or more %,d, not succeeded %,d, attempts beyond the first %,d, "
                        + "executions of unknown runs %,d%n", runs, lines, files.size(), lost, twice, notSucceeded,
                extraAttempts, unknown);
        boolean ok = runs > 0 && lost == 0 && twice == 0 && notSucceeded == 0 && extraAttempts == 0 && unknown == 0;
        System.out.println(ok ? "check: OK, every run executed exactly once" : "check: FAILED");
        return ok ? 0 : 1;
    }
}
