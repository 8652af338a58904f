package io.forgeflow.admin.ui;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;


/**
 * The desktop against the real thing: starts {@code server/target/forgeflow.jar} as a process on a fresh PostgreSQL
 * database (created here, dropped after) and clicks through connect, submit {@code echo hello}, and watching its run
 * succeed. Skipped when the jar has not been built. PostgreSQL is looked for at 127.0.0.1:5432 (user postgres, trust)
 * or at FORGEFLOW_E2E_POSTGRES (a JDBC URL to run CREATE DATABASE through); when there is none the node runs on its
 * embedded development database (in target/e2e-node).
 */
class AdminDesktopEndToEndIT extends UiTestSupport {
    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static String database;
    private static String adminJdbcUrl;
    private static Process node;
    private static String nodeUrl;
    private static Path log;

    @BeforeAll
    static void startNode() throws Exception {
        Path jar = Path.of(System.getProperty("forgeflow.server.jar", "../server/target/forgeflow.jar"));
        // in the reactor (mvn verify) the server module is packaged before this one; run alone, say how to get the jar
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the server jar is not built: " + jar.toAbsolutePath()
                    + " (run `mvn -B verify` from the root, or `mvn -B -q package -DskipTests -pl server -am` first)");
        }
        adminJdbcUrl = System.getenv().getOrDefault("FORGEFLOW_E2E_POSTGRES",
                "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        String name = "ff_admin_e2e_" + ProcessHandle.current().pid();
        try {
            sql("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            sql("CREATE DATABASE " + name);
            database = name;
        } catch (SQLException e) {
            System.err.println("AdminDesktopEndToEndIT: PostgreSQL is not reachable at " + adminJdbcUrl + " ("
                    + e.getMessage() + "); the node starts its embedded development database instead");
        }
        Path workDir = Path.of("target", "e2e-node");
        deleteRecursively(workDir);
        Files.createDirectories(workDir);
        int port = freePort();
        int adminPort = freePort();
        nodeUrl = "http://127.0.0.1:" + port;
        log = Path.of("target", "e2e-node.log");
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toAbsolutePath().toString(), "server");
        builder.directory(workDir.toFile());
        if (database != null) {
            builder.environment().put("FORGEFLOW_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/" + database);
        } else {
            builder.environment().remove("FORGEFLOW_DATABASE_URL");
        }
        builder.environment().put("FORGEFLOW_LISTEN_ADDR", "127.0.0.1:" + port);
        builder.environment().put("FORGEFLOW_ADMIN_LISTEN_ADDR", "127.0.0.1:" + adminPort);
        builder.redirectErrorStream(true).redirectOutput(log.toAbsolutePath().toFile());
        node = builder.start();
        try (ForgeFlowClient client = ForgeFlowClient.builder(nodeUrl).callTimeout(Duration.ofSeconds(2)).build()) {
            WaitForAsyncUtils.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS, () -> {
                if (!node.isAlive()) {
                    throw new AssertionError("the node exited with " + node.exitValue() + "; see " + log.toAbsolutePath()
                            + ":\n" + tail());
                }
                try {
                    return client.ready().ready();
                } catch (ForgeFlowException notYet) {
                    return false;
                }
            });
        }
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.destroy();
            if (!node.waitFor(30, TimeUnit.SECONDS)) {
                node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (database != null) {
            try {
                sql("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            } catch (SQLException ignored) {
                // the server was never reachable; nothing to drop
            }
        }
    }

    @Test
    void connectSubmitEchoHelloAndSeeItsRunSucceed(FxRobot robot) {
        openApp(nodeUrl);
        connect(robot);

        robot.clickOn("#tab-submit");
        robot.clickOn("#jobName").write("e2e-hello");
        robot.clickOn("#jobCommand").write("echo hello");
        robot.clickOn("#submitJob");
        untilText(robot, "#formMessage", "Created job e2e-hello");

        robot.clickOn("#formViewRuns");
        untilText(robot, "#runsJobFilter", "e2e-hello");
        robot.clickOn(cell(robot, "runsTable", Run.SUCCEEDED));

        untilText(robot, "#runStatus", Run.SUCCEEDED);
        untilText(robot, "#runOutput", "hello");
        robot.clickOn("#tab-overview");
        untilText(robot, "#stat-succeeded", "1");
    }

    private static void sql(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminJdbcUrl); Statement s = c.createStatement()) {
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
