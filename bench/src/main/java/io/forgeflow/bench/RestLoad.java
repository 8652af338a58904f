package io.forgeflow.bench;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.concurrent.locks.LockSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The REST submission load: a node process (this jar, role api) and a closed loop of {@code clients} threads, each
 * on its own kept-alive connection ({@link PlainHttpClient}), posting run-now no-op jobs for a while; the first
 * seconds are warm-up and not counted (a fresh node JVM compiles its request path while it serves: measured cold,
 * it spent several times the CPU per request it spends warm).
 */
final class RestLoad {
    private final BenchDatabase db;
    private final java.io.PrintStream out;
    private final Path nodeJar;

    /** @param nodeJar the node's jar (server/target/forgeflow.jar), started as the node under load */
    RestLoad(BenchDatabase db, java.io.PrintStream out, Path nodeJar) {
        this.nodeJar = nodeJar;
        this.db = db;
        this.out = out;
    }

    BenchResult run(int clients, Duration warmup, Duration measured) throws Exception {
        try (BenchDatabase.Fresh fresh = db.fresh("rest")) {
            int port = freePort();
            Process node = startNode(fresh.jdbcUrlWithCredentials(), port);
            try {
                awaitReady(node, port);
                Connection probe = db.connect(fresh.name);
                CpuMeter meter = new CpuMeter(probe, fresh.name, node.pid());
                byte[] request = PlainHttpClient.jsonPost("127.0.0.1", port, "/api/jobs",
                        "{\"name\": \"rest-bench\", \"executor\": \"noop\", \"payload\": {}}");
                long start = System.nanoTime();
                long measureFrom = start + warmup.toNanos();
                long end = measureFrom + measured.toNanos();
                AtomicLong failures = new AtomicLong();
                List<long[]> perThread = new ArrayList<>();
                List<int[]> counts = new ArrayList<>();
                List<Thread> threads = new ArrayList<>();
                Thread measuring = new Thread(() -> {
                    LockSupport.parkNanos(Math.max(0, measureFrom - System.nanoTime()));
                    meter.start();
                    LockSupport.parkNanos(Math.max(0, end - System.nanoTime()));
                }, "rest-cpu");
                measuring.start();
                for (int t = 0; t < clients; t++) {
                    long[][] buffer = {new long[4096]};
                    int[] n = {0};
                    Thread th = new Thread(() -> {
                        try (PlainHttpClient http = new PlainHttpClient("127.0.0.1", port, 10_000)) {
                            while (true) {
                                long sent = System.nanoTime();
                                if (sent >= end) {
                                    break;
                                }
                                try {
                                    int status = http.send(request);
                                    long took = System.nanoTime() - sent;
                                    if (status != 201) {
                                        failures.incrementAndGet();
                                    } else if (sent >= measureFrom) {
                                        if (n[0] == buffer[0].length) {
                                            buffer[0] = Arrays.copyOf(buffer[0], n[0] * 2);
                                        }
                                        buffer[0][n[0]++] = took;
                                    }
                                } catch (IOException | RuntimeException e) {
                                    failures.incrementAndGet();
                                }
                            }
                        }
                        synchronized (perThread) {
                            perThread.add(Arrays.copyOf(buffer[0], n[0]));
                            counts.add(n);
                        }
                    }, "rest-client-" + t);
                    threads.add(th);
                    th.start();
                }
                measuring.join();
                CpuMeter.Cpu cpu = meter.stop();
                probe.close();
                for (Thread th : threads) {
                    th.join();
                }
                long total = perThread.stream().mapToLong(a -> a.length).sum();
                long[] all = new long[(int) total];
                int k = 0;
                for (long[] a : perThread) {
                    System.arraycopy(a, 0, all, k, a.length);
                    k += a.length;
                }
                Stats stats = Stats.of(all, all.length);
                double perSecond = total / (measured.toNanos() / 1e9);
                return new BenchResult("REST POST /api/jobs, " + clients + " clients (closed loop)", perSecond, null,
                        stats.p50(), stats.p95(), stats.p99(), stats.max(), Double.NaN, Double.NaN, total,
                        failures.get(), 0, null, null, "node with role api in its own JVM; lost = failed requests; "
                        + String.format(java.util.Locale.ROOT, "load generator CPU %.0f us per request",
                        cpu.jvmMillis() * 1000 / Math.max(1, total))).withCpu(cpu, total);
            } finally {
                node.destroy();
                if (!node.waitFor(30, TimeUnit.SECONDS)) {
                    node.destroyForcibly();
                }
            }
        }
    }

    private Process startNode(String databaseUrl, int port) throws Exception {
        Path jar = nodeJar;
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the REST load starts a node from its jar, and " + jar.toAbsolutePath()
                    + " is not there: build it (mvn -B -q package -DskipTests) or name it with --node-jar");
        }
        Path log = Files.createTempFile("forgeflow-bench-node-", ".log");
        out.println("  node log: " + log);
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-jar", jar.toString(), "server")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        env.put("FORGEFLOW_DATABASE_URL", databaseUrl);
        env.put("FORGEFLOW_ROLES", "api");
        env.put("FORGEFLOW_LISTEN_ADDR", "127.0.0.1:" + port);
        env.put("FORGEFLOW_ADMIN_LISTEN_ADDR", "127.0.0.1:" + freePort());
        return pb.start();
    }

    private static void awaitReady(Process node, int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!node.isAlive()) {
                throw new IllegalStateException("the benchmark node exited with " + node.exitValue());
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            node.waitFor(200, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("the benchmark node did not become ready");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
