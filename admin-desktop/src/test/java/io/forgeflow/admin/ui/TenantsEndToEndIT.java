package io.forgeflow.admin.ui;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import javafx.scene.control.TableColumn;
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
 * Tenants (issue 42) in the desktop against the real node ({@code server/target/forgeflow.jar}, started as
 * AdminDesktopEndToEndIT starts it) with a cluster-wide token and one bound to tenant acme: a tenant-bound token
 * connects though /api/stats refuses it, sees its jobs and the overview's reason; a cluster-wide token with tenant acme
 * on the connect screen sees acme's jobs only.
 */
class TenantsEndToEndIT extends UiTestSupport {
    private static final Duration STARTUP = Duration.ofSeconds(120);
    static final String ADMIN_TOKEN = "e2e-tenants-admin-0123456789";
    static final String ACME_TOKEN = "e2e-tenants-acme-0123456789";
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
        String name = "ff_admin_tenants_" + ProcessHandle.current().pid();
        try {
            sql("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            sql("CREATE DATABASE " + name);
            database = name;
        } catch (SQLException e) {
            System.err.println("TenantsEndToEndIT: no PostgreSQL at " + adminJdbcUrl + " (" + e.getMessage()
                    + "); the node starts its embedded development database instead");
        }
        Path workDir = Path.of("target", "e2e-tenants-node");
        if (Files.exists(workDir)) {
            try (var paths = Files.walk(workDir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(workDir);
        Path portsFile = workDir.toAbsolutePath().resolve("node.ports");
        log = Path.of("target", "e2e-tenants-node.log");
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
        builder.environment().put("FORGEFLOW_API_TOKENS", "admin:" + ADMIN_TOKEN + ",acme/read+submit:" + ACME_TOKEN);
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
            // made once for both tests: far in the future, so nothing runs
            client.submitJob(JobRequest.shell("plain-report", "echo plain").cron("0 3 1 1 *").build());
            client.withTenant("acme").submitJob(JobRequest.shell("acme-ingest", "echo acme").cron("0 3 1 1 *")
                    .build());
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
    List<String> jobNames(FxRobot robot) {
        return onFx(() -> ((TableView<Job>) robot.lookup("#jobsTable").queryAs(TableView.class)).getItems()
                .stream().map(Job::name).sorted().toList());
    }

    boolean tenantColumnVisible(FxRobot robot) {
        return onFx(() -> {
            TableView<?> table = robot.lookup("#jobsTable").queryAs(TableView.class);
            return table.getColumns().stream().filter(c -> "Tenant".equals(c.getText()))
                    .map(TableColumn::isVisible).findFirst().orElseThrow();
        });
    }

    @Test
    void aTenantBoundTokenConnectsSeesItsJobsAndWhyTheClusterViewsAreEmpty(FxRobot robot) {
        openApp(nodeUrl);
        robot.clickOn("#apiToken").write(ACME_TOKEN);
        connect(robot);

        untilText(robot, "#clusterNote", "This token is bound to tenant acme; cluster views need a cluster-wide token.");
        untilText(robot, "#tenantLabel", "Tenant acme (this token's)");
        untilText(robot, "#liveStatus", "the event stream is cluster-wide");
        assertThat(text(robot, "#overviewProblem")).isEmpty();
        robot.clickOn("#tab-jobs");
        until(() -> jobNames(robot).equals(List.of("acme-ingest")));
        assertThat(tenantColumnVisible(robot)).isTrue();
    }

    @Test
    void aClusterWideTokenActsInTheTenantTypedOnTheConnectScreen(FxRobot robot) {
        openApp(nodeUrl);
        robot.clickOn("#apiToken").write(ADMIN_TOKEN);
        robot.clickOn("#tenant").write("acme");
        connect(robot);

        untilText(robot, "#tenantLabel", "Tenant acme");
        assertThat(robot.lookup("#clusterNote").tryQuery().map(n -> n.isVisible()).orElse(false)).isFalse();
        robot.clickOn("#tab-jobs");
        until(() -> jobNames(robot).equals(List.of("acme-ingest")));
        assertThat(tenantColumnVisible(robot)).isTrue();
    }

    @Test
    void aClusterWideAdminSetsATenantsWeightAndLimitsAndTheNodeHoldsThem(FxRobot robot) throws Exception {
        openApp(nodeUrl);
        robot.clickOn("#apiToken").write(ADMIN_TOKEN);
        connect(robot);

        robot.clickOn("#tab-tenants");
        cell(robot, "tenantsTable", "default");
        robot.clickOn(cell(robot, "tenantsTable", "acme"));
        untilText(robot, "#tenantEditTitle", "Tenant acme");
        setField(robot, "#tenantWeight", "0");
        robot.clickOn("#saveTenant");
        untilText(robot, "#tenantError-weight", "weight must be");

        setField(robot, "#tenantWeight", "4");
        setField(robot, "#tenantMaxRunning", "2");
        robot.clickOn("#saveTenant");
        untilText(robot, "#tenantsMessage", "Saved tenant acme: weight 4, limits max 2 running.");
        try (ForgeFlowClient client = ForgeFlowClient.builder(nodeUrl).token(ADMIN_TOKEN).build()) {
            io.forgeflow.client.Tenant acme = client.tenant("acme");
            assertThat(acme.weight()).isEqualTo(4);
            assertThat(acme.maxRunning()).isEqualTo(2);
            assertThat(acme.rateLimit()).isNull();
        }
    }

    @Test
    void aTenantBoundTokenIsToldTheTenantsViewIsClusterWide(FxRobot robot) {
        openApp(nodeUrl);
        robot.clickOn("#apiToken").write(ACME_TOKEN);
        connect(robot);
        untilText(robot, "#tenantLabel", "Tenant acme (this token's)");

        robot.clickOn("#tab-tenants");
        untilText(robot, "#tenantsRefused", "This token is bound to tenant acme; tenants' weights and limits are "
                + "cluster-wide");
        assertThat(robot.lookup("#tenantsTable").query().isVisible()).isFalse();
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
