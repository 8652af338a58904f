package io.forgeflow.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own ({@code initdb} in a temporary directory, a free loopback port), which the test
 * stops and starts at will; never the machine's shared server. As root, every command runs as the {@code postgres} OS
 * user (PostgreSQL refuses to run as root).
 */
final class OwnPostgres implements AutoCloseable {
    private static final String OS_USER = "postgres";

    final int port;
    private final Path bin;
    private final Path root;
    private final Path data;
    private final Path log;
    private boolean running;

    private OwnPostgres(Path bin, Path root, int port) {
        this.bin = bin;
        this.root = root;
        this.data = root.resolve("data");
        this.log = root.resolve("postgres.log");
        this.port = port;
    }

    /** The newest {@code /usr/lib/postgresql/<version>/bin} that has initdb and pg_ctl, if any. */
    static Optional<Path> binaries() {
        Path lib = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(lib)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(lib)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparing(b -> version(b.getParent().getFileName().toString())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int version(String name) {
        try {
            return Integer.parseInt(name.replaceAll("\\D.*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Whether this process is root (then the cluster runs as {@code postgres}). */
    static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** A new cluster, initialised and started. */
    static OwnPostgres start(Path bin) throws Exception {
        Path root = Files.createTempDirectory("forgeflow-own-pg-");
        OwnPostgres pg = new OwnPostgres(bin, root, io.forgeflow.adapter.postgres.testing.LoopbackPorts.outsideEphemeralRange());
        if (root()) {
            pg.command(List.of("chown", OS_USER, root.toString()), false);
        }
        pg.command(List.of(bin.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-sync"), true);
        pg.startServer();
        return pg;
    }

    String url() {
        return "postgresql://postgres@127.0.0.1:" + port + "/postgres";
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** pg_ctl start, waiting until it accepts connections. */
    void startServer() throws Exception {
        command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", log.toString(), "-w",
                "-t", "60", "-o", "-p " + port + " -k " + root + " -c listen_addresses=127.0.0.1 -c fsync=off "
                        + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200", "start"), true);
        running = true;
    }

    /** pg_ctl stop in fast mode: every session is ended, the server shuts down cleanly. */
    void stopFast() throws Exception {
        command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "-t", "60",
                "stop"), true);
        running = false;
    }

    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void command(List<String> command, boolean asPostgres) throws Exception {
        List<String> full = new ArrayList<>();
        if (asPostgres && root()) {
            full.addAll(List.of("runuser", "-u", OS_USER, "--"));
        }
        full.addAll(command);
        Path out = Files.createTempFile("forgeflow-own-pg-cmd", ".log");
        try {
            Process p = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", full) + " did not end in 120 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", full) + " exited with " + p.exitValue() + ":\n"
                        + Files.readString(out) + "\n" + logText());
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (running) {
                command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w",
                        "stop"), true);
                running = false;
            }
        } finally {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
