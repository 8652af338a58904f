package io.forgeflow.admin.ui;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants (issue 42) in the desktop against the real node ({@code server/target/forgeflow.jar}, started as
 * AdminDesktopEndToEndIT starts it) with a cluster-wide token and one bound to tenant acme: a tenant-bound token
 * connects though /api/stats refuses it, sees its jobs and the overview's reason; a cluster-wide token with tenant acme
 * on the connect screen sees acme's jobs only.
 */
class TenantsEndToEndIT extends UiTestSupport {
    static final String ADMIN_TOKEN = "e2e-tenants-admin-0123456789";
    static final String ACME_TOKEN = "e2e-tenants-acme-0123456789";
    private static E2eNode node;
    private static String nodeUrl;

    @BeforeAll
    static void startNode() throws Exception {
        node = E2eNode.start("tenants", Map.of("FORGEFLOW_API_TOKENS", "admin:" + ADMIN_TOKEN + ",acme/read+submit:" + ACME_TOKEN));
        nodeUrl = node.url;
        try (ForgeFlowClient client = ForgeFlowClient.builder(nodeUrl).token(ADMIN_TOKEN).build()) {
            // made once for both tests: far in the future, so nothing runs
            client.submitJob(JobRequest.shell("plain-report", "echo plain").cron("0 3 1 1 *").build());
            client.withTenant("acme").submitJob(JobRequest.shell("acme-ingest", "echo acme").cron("0 3 1 1 *")
                    .build());
        }
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
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
}
