package io.forgeflow.admin.ui;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.Queue;
import javafx.scene.control.TableView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Queues tab against the real node ({@code server/target/forgeflow.jar} on PostgreSQL, started as
 * TenantsEndToEndIT starts it): acme's and the default tenant's queue {@code reports} are two queues; a cluster-wide
 * admin without a tenant sets acme's limits and pauses it from the desktop, the node's refusal shows beside its
 * field, and REST reads acme's queue changed and the default tenant's unchanged.
 */
class QueuesEndToEndIT extends UiTestSupport {
    private static final Duration STARTUP = Duration.ofSeconds(120);
    static final String ADMIN_TOKEN = "e2e-queues-admin-0123456789";
        private static String database;
    private static String adminJdbcUrl;
    private static Process node;
    private static String nodeUrl;
    private static Path log;

    @BeforeAll
    static void startNode() throws Exception {
        Path jar = Path.of(System.getProperty("forgeflow.server.jar", "../server/target/forgeflow.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the server jar is not built: " + jar.toAbsolutePath()
                    + " (run `mvn -B -q package -DskipTests -pl server -am` first)");
        }
        adminJdbcUrl = System.getenv().getOrDefault("FORGEFLOW_E2E_POSTGRES",
                "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        String name = "ff_admin_queues_" + ProcessHandle.current().pid();
        try {
            sql("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            sql("CREATE DATABASE " + name);
            database = name;
        } catch (SQLException e) {
            System.err.println("QueuesEndToEndIT: no PostgreSQL at " + adminJdbcUrl + " (" + e.getMessage()
                    + "); the node starts its embedded development database instead");
        }
        Path workDir = Path.of("target", "e2e-queues-node");
        if (Files.exists(workDir)) {
            try (var paths = Files.walk(workDir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(workDir);
        Path portsFile = workDir.toAbsolutePath().resolve("node.ports");
        log = Path.of("target", "e2e-queues-node.log");
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
        builder.environment().put("FORGEFLOW_API_TOKENS", "admin:" + ADMIN_TOKEN);
        builder.redirectErrorStream(true).redirectOutput(log.toAbsolutePath().toFile());
        node = builder.start();
        WaitForAsyncUtils.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS, () -> {
            if (!node.isAlive()) {
                throw new AssertionError("the node exited with " + node.exitValue() + "; see " + log.toAbsolutePath()
                        + ":\n" + tail());
            }
            return Files.exists(portsFile);
        });
        nodeUrl = "http://127.0.0.1:" + Files.readAllLines(portsFile).stream().filter(l -> l.startsWith("api="))
                .map(l -> l.substring(4).trim()).findFirst().orElseThrow();
        try (ForgeFlowClient client = ForgeFlowClient.builder(nodeUrl).token(ADMIN_TOKEN)
                .callTimeout(Duration.ofSeconds(2)).build()) {
            WaitForAsyncUtils.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS, () -> {
                try {
                    return client.ready().ready();
                } catch (ForgeFlowException notYet) {
                    return false;
                }
            });
            // one queue name in two tenants; far in the future, so nothing runs
            client.submitJob(JobRequest.shell("plain-report", "echo plain").cron("0 3 1 1 *").queue("reports")
                    .build());
            client.withTenant("acme").submitJob(JobRequest.shell("acme-report", "echo acme").cron("0 3 1 1 *")
                    .queue("reports").build());
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
                // nothing to drop
            }
        }
    }

    @SuppressWarnings("unchecked")
    List<String> rows(FxRobot robot) {
        return onFx(() -> ((TableView<Queue>) robot.lookup("#queuesTable").queryAs(TableView.class)).getItems()
                .stream().map(q -> q.tenant() + "/" + q.name()).toList());
    }

    @Test
    void aClusterWideAdminSetsAcmesQueueLimitsAndPausesItAndTheDefaultTenantsQueueStaysAsItWas(FxRobot robot) {
        openApp(nodeUrl);
        robot.clickOn("#apiToken").write(ADMIN_TOKEN);
        connect(robot);

        robot.clickOn("#tab-queues");
        until(() -> rows(robot).containsAll(List.of("acme/reports", "default/reports")));
        robot.clickOn(cell(robot, "queuesTable", "acme"));
        untilText(robot, "#queueEditTitle", "Queue reports (tenant acme)");

        setField(robot, "#queueMaxRunning", "0");
        robot.clickOn("#saveQueue");
        untilText(robot, "#queueError-max-running", "max_running must be between 1 and 100000");

        setField(robot, "#queueMaxRunning", "3");
        setField(robot, "#queueRateCount", "20");
        setField(robot, "#queueRatePer", "60");
        robot.clickOn("#saveQueue");
        untilText(robot, "#queuesMessage", "Saved queue reports (tenant acme): limits max 3 running, 20 per 60 s");
        assertThat(robot.lookup("#queueError-max-running").query().isVisible()).isFalse();

        robot.clickOn("#pauseQueue");
        untilText(robot, "#queueConfirmQuestion", "Pause queue reports (tenant acme)?");
        robot.clickOn("#queueConfirmYes");
        untilText(robot, "#queuesMessage", "Paused queue reports (tenant acme).");

        try (ForgeFlowClient client = ForgeFlowClient.builder(nodeUrl).token(ADMIN_TOKEN).build()) {
            Queue acme = client.withTenant("acme").queue("reports");
            assertThat(acme.tenant()).isEqualTo("acme");
            assertThat(acme.maxRunning()).isEqualTo(3);
            assertThat(acme.rateLimit()).isEqualTo(new Queue.RateLimit(20, 60));
            assertThat(acme.paused()).isTrue();
            Queue plain = client.queue("reports");
            assertThat(plain.tenant()).isEqualTo("default");
            assertThat(plain.maxRunning()).isNull();
            assertThat(plain.rateLimit()).isNull();
            assertThat(plain.paused()).isFalse();
        }
    }

    void setField(FxRobot robot, String id, String value) {
        robot.clickOn(id);
        onFx(() -> {
            ((javafx.scene.control.TextField) robot.lookup(id).query()).setText("");
            return null;
        });
        robot.write(value);
    }

    private static void sql(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminJdbcUrl); Statement s = c.createStatement()) {
            s.execute(statement);
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
