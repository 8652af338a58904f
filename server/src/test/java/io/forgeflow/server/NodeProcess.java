package io.forgeflow.server;

import java.io.File;
import java.io.IOException;
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
    /** The gRPC port, 0 without gRPC. */
    final int grpcPort;
    final Path log;
    private final Process process;

    private NodeProcess(String workerId, Map<String, Integer> ports, Path log, Process process) {
        this.workerId = workerId;
        this.port = ports.get("api");
        this.adminPort = ports.get("admin");
        this.grpcPort = ports.getOrDefault("grpc", 0);
        this.log = log;
        this.process = process;
    }

    /**
     * Starts a node with these roles; waits until /readyz answers. Its listeners bind port 0 (the kernel picks) and the
     * node says which ports it got in its FORGEFLOW_PORTS_FILE: a port chosen here and bound later by the child could be
     * taken in between, by any outgoing connection of this machine. A gRPC address in {@code extraEnv} should use
     * port 0 too ({@link #grpcPort}).
     */
    static NodeProcess start(String workerId, String roles, String databaseUrl, Map<String, String> extraEnv)
            throws Exception {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run these tests with `mvn verify`, "
                    + "which packages the jar before the integration tests");
        }
        Path log = Files.createDirectories(Path.of("target", "node-logs")).resolve(workerId + ".log");
        Path portsFile = log.resolveSibling(workerId + ".ports");
        Files.deleteIfExists(portsFile);
        List<String> jvm = new ArrayList<>();
        NodeClassArchive.get().ifPresent(archive -> jvm.add("-XX:SharedArchiveFile=" + archive));
        ProcessBuilder pb = processBuilder(workerId, roles, databaseUrl, extraEnv, jvm, log, portsFile);
        Process process = pb.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        NodeProcess node = new NodeProcess(workerId, awaitPorts(workerId, portsFile, process, log, deadline), log, process);
        node.awaitHealthy(deadline);
        return node;
    }

    /**
     * The command and environment of a node process from the jar: these roles on this database, listening on loopback
     * port 0 (the ports it got go to {@code portsFile}), its output in {@code log}; {@code jvmOptions} before the jar.
     */
    static ProcessBuilder processBuilder(String workerId, String roles, String databaseUrl, Map<String, String> extraEnv,
                                         List<String> jvmOptions, Path log, Path portsFile) {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", JAR.toString(), "server"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        env.put("LANG", "C.UTF-8");
        env.put("FORGEFLOW_DATABASE_URL", databaseUrl);
        env.put("FORGEFLOW_ROLES", roles);
        env.put("FORGEFLOW_WORKER_ID", workerId);
        env.put("FORGEFLOW_LISTEN_ADDR", "127.0.0.1:0");
        env.put("FORGEFLOW_ADMIN_LISTEN_ADDR", "127.0.0.1:0");
        env.put("FORGEFLOW_PORTS_FILE", portsFile.toAbsolutePath().toString());
        env.putAll(extraEnv);
        return pb;
    }

    /** A node's FORGEFLOW_PORTS_FILE: {@code name=port} lines (api, admin, grpc). */
    static Map<String, Integer> readPorts(Path portsFile) throws IOException {
        Map<String, Integer> ports = new java.util.HashMap<>();
        for (String line : Files.readAllLines(portsFile)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                ports.put(line.substring(0, eq), Integer.parseInt(line.substring(eq + 1).trim()));
            }
        }
        return ports;
    }

    /** The ports a starting node wrote to its ports file, once it has. */
    static Map<String, Integer> awaitPorts(String workerId, Path portsFile, Process process, Path log, long deadline)
            throws Exception {
        while (System.nanoTime() < deadline) {
            if (Files.exists(portsFile)) {
                return readPorts(portsFile);
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("node " + workerId + " exited with " + process.exitValue()
                        + " while starting:\n" + read(log));
            }
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("node " + workerId + " did not write " + portsFile + " in time:\n" + read(log));
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
        return read(log);
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void awaitHealthy(long deadline) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
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
        throw new IllegalStateException("node " + workerId + " did not become ready in time:\n" + logText());
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    static String javaBinary() {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }
}
