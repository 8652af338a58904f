package io.forgeflow.admin.ui;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.ForgeFlowException;
import org.testfx.util.WaitForAsyncUtils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real node for the desktop's end-to-end tests: {@code server/target/forgeflow.jar} as a process on a fresh
 * PostgreSQL database (created here, dropped on close; the node's embedded development database when PostgreSQL is not
 * reachable at {@code FORGEFLOW_E2E_POSTGRES}). It binds port 0 and writes the ports it got, so no port is picked
 * here that another process could take first. Its work folder and log are {@code target/e2e-<label>-node[.log]}.
 */
final class E2eNode implements AutoCloseable {
    static final Duration STARTUP = Duration.ofSeconds(120);

    /** The node's API, e.g. {@code http://127.0.0.1:41234}. */
    final String url;
    private final Process process;
    private final Path log;
    private final String adminJdbcUrl;
    private final String database;

    private E2eNode(String url, Process process, Path log, String adminJdbcUrl, String database) {
        this.url = url;
        this.process = process;
        this.log = log;
        this.adminJdbcUrl = adminJdbcUrl;
        this.database = database;
    }

    /** Starts a node with {@code env} added to its environment and waits until it is ready. */
    static E2eNode start(String label, Map<String, String> env) throws Exception {
        Path jar = Path.of(System.getProperty("forgeflow.server.jar", "../server/target/forgeflow.jar"));
        // in the reactor (mvn verify) the server module is packaged before this one; run alone, say how to get the jar
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the server jar is not built: " + jar.toAbsolutePath()
                    + " (run `mvn -B verify` from the root, or `mvn -B -q package -DskipTests -pl server -am` first)");
        }
        String adminJdbcUrl = System.getenv().getOrDefault("FORGEFLOW_E2E_POSTGRES",
                "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        String name = "ff_admin_" + label + "_" + ProcessHandle.current().pid();
        String database = null;
        try {
            sql(adminJdbcUrl, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            sql(adminJdbcUrl, "CREATE DATABASE " + name);
            database = name;
        } catch (SQLException e) {
            System.err.println("E2eNode " + label + ": PostgreSQL is not reachable at " + adminJdbcUrl + " ("
                    + e.getMessage() + "); the node starts its embedded development database instead");
        }
        Path workDir = Path.of("target", "e2e-" + label + "-node");
        deleteRecursively(workDir);
        Files.createDirectories(workDir);
        Path portsFile = workDir.toAbsolutePath().resolve("node.ports");
        Path log = Path.of("target", "e2e-" + label + "-node.log");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toAbsolutePath().toString(), "server");
        builder.directory(workDir.toFile());
        if (database != null) {
            builder.environment().put("FORGEFLOW_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/" + database);
        } else {
            builder.environment().remove("FORGEFLOW_DATABASE_URL");
        }
        builder.environment().put("FORGEFLOW_LISTEN_ADDR", "127.0.0.1:0");
        builder.environment().put("FORGEFLOW_ADMIN_LISTEN_ADDR", "127.0.0.1:0");
        builder.environment().put("FORGEFLOW_PORTS_FILE", portsFile.toString());
        builder.environment().putAll(env);
        builder.redirectErrorStream(true).redirectOutput(log.toAbsolutePath().toFile());
        Process process = builder.start();
        E2eNode starting = new E2eNode(null, process, log, adminJdbcUrl, database);
        try {
            WaitForAsyncUtils.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS, () -> {
                starting.checkAlive();
                return Files.exists(portsFile);
            });
            String url = "http://127.0.0.1:" + Files.readAllLines(portsFile).stream()
                    .filter(l -> l.startsWith("api=")).map(l -> l.substring(4).trim()).findFirst().orElseThrow();
            try (ForgeFlowClient client = ForgeFlowClient.builder(url).callTimeout(Duration.ofSeconds(2)).build()) {
                WaitForAsyncUtils.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS, () -> {
                    starting.checkAlive();
                    try {
                        return client.ready().ready();
                    } catch (ForgeFlowException notYet) {
                        return false;
                    }
                });
            }
            return new E2eNode(url, process, log, adminJdbcUrl, database);
        } catch (Exception | AssertionError e) {
            starting.close();
            throw e;
        }
    }

    private void checkAlive() {
        if (!process.isAlive()) {
            throw new AssertionError("the node exited with " + process.exitValue() + "; see " + log.toAbsolutePath()
                    + ":\n" + tail());
        }
    }

    /** Stops the node (SIGTERM, then SIGKILL after 30 s) and drops its database. */
    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (database != null) {
            try {
                sql(adminJdbcUrl, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            } catch (SQLException ignored) {
                // PostgreSQL went away meanwhile: nothing to drop
            }
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void sql(String jdbcUrl, String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
