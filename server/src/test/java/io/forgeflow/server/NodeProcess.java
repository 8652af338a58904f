package io.forgeflow.server;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A ForgeFlow node as a real JVM process started from the built jar, for tests that kill processes. */
final class NodeProcess implements AutoCloseable {
    static final Path JAR = Path.of("target", "forgeflow.jar");

    final String workerId;
    /** Leases of 4 s beaten every second, quick polls, ticks and retries: the timing most process tests want. */
    static final Map<String, String> FAST_LEASES = Map.of(
            "FORGEFLOW_LEASE_DURATION", "4s",
            "FORGEFLOW_HEARTBEAT_INTERVAL", "1s",
            "FORGEFLOW_POLL_INTERVAL", "200ms",
            "FORGEFLOW_SCHEDULER_TICK", "300ms",
            "FORGEFLOW_RETRY_BASE", "200ms");

    /** {@link #FAST_LEASES} with {@code more} over it. */
    static Map<String, String> fastLeases(Map<String, String> more) {
        Map<String, String> m = new java.util.HashMap<>(FAST_LEASES);
        m.putAll(more);
        return Map.copyOf(m);
    }

    final int port;
    final int adminPort;
    final Path log;
    private final Process process;

    private NodeProcess(String workerId, int port, int adminPort, Path log, Process process) {
        this.workerId = workerId;
        this.port = port;
        this.adminPort = adminPort;
        this.log = log;
        this.process = process;
    }

    /** Starts a node with these roles on free loopback ports; waits until /healthz answers. */
    static NodeProcess start(String workerId, String roles, String databaseUrl, Map<String, String> extraEnv)
            throws Exception {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run these tests with `mvn verify`, "
                    + "which packages the jar before the integration tests");
        }
        int port = freePort();
        int adminPort = freePort();
        Path log = Files.createDirectories(Path.of("target", "node-logs")).resolve(workerId + ".log");
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-jar", JAR.toString(), "server"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        env.put("LANG", "C.UTF-8");
        env.put("FORGEFLOW_DATABASE_URL", databaseUrl);
        env.put("FORGEFLOW_ROLES", roles);
        env.put("FORGEFLOW_WORKER_ID", workerId);
        env.put("FORGEFLOW_LISTEN_ADDR", "127.0.0.1:" + port);
        env.put("FORGEFLOW_ADMIN_LISTEN_ADDR", "127.0.0.1:" + adminPort);
        env.putAll(extraEnv);
        NodeProcess node = new NodeProcess(workerId, port, adminPort, log, pb.start());
        node.awaitHealthy(Duration.ofSeconds(90));
        return node;
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** kill -9: no shutdown hook, no drain, no release. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM; returns the exit code, or -1 if it did not exit in time. */
    int terminate(Duration within) throws InterruptedException {
        process.destroy();
        return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void awaitHealthy(Duration max) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("node " + workerId + " exited with " + process.exitValue()
                        + " while starting:\n" + logText());
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url("/readyz")))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            process.waitFor(200, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("node " + workerId + " did not become ready within " + max + ":\n" + logText());
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String javaBinary() {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }
}
