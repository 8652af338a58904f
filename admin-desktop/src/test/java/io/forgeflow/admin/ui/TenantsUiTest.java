package io.forgeflow.admin.ui;

import io.forgeflow.client.Job;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants (issue 42) in the real app against the scripted server: a tenant typed on the connect screen is sent on every
 * call and filters the lists, the Tenant column shows only while a row is outside the default tenant, and a
 * tenant-bound token gets its jobs and, on the overview, the reason the cluster views are empty.
 */
class TenantsUiTest extends UiTestSupport {
    static final String ADMIN = "admin-token-0123";
    static final String ACME = "acme-token-0123";

    String acmeJob;

    void twoTenants() {
        open(s -> {
            s.requireToken(ADMIN).bindToken(ACME, "acme");
            Job job = s.addJob("acme-ingest", "shell", Map.of("command", "./ingest.sh"), "0 * * * *", "UTC",
                    Job.ACTIVE);
            s.moveToTenant(job.id(), "acme");
            acmeJob = job.id();
        });
    }

    boolean tenantColumnVisible(FxRobot robot, String tableId) {
        return onFx(() -> {
            TableView<?> table = robot.lookup("#" + tableId).queryAs(TableView.class);
            return table.getColumns().stream().filter(c -> "Tenant".equals(c.getText()))
                    .map(TableColumn::isVisible).findFirst().orElseThrow();
        });
    }

    @SuppressWarnings("unchecked")
    List<String> jobNames(FxRobot robot) {
        return onFx(() -> ((TableView<Job>) robot.lookup("#jobsTable").queryAs(TableView.class)).getItems()
                .stream().map(Job::name).toList());
    }

    @Test
    void aClusterWideTokenSeesEveryTenantWithATenantColumn(FxRobot robot) {
        twoTenants();
        robot.clickOn("#apiToken").write(ADMIN);
        connect(robot);

        robot.clickOn("#tab-jobs");
        cell(robot, "jobsTable", "acme-ingest");
        cell(robot, "jobsTable", "nightly-report");
        assertThat(tenantColumnVisible(robot, "jobsTable")).isTrue();
        cell(robot, "jobsTable", "acme");
        assertThat(robot.lookup("#tenantLabel").tryQuery().map(n -> n.isVisible()).orElse(false)).isFalse();
        assertThat(server.tenantHeaders()).containsOnly("-");
    }

    @Test
    void aTenantTypedOnTheConnectScreenIsSentOnEveryCallAndFiltersTheLists(FxRobot robot) {
        twoTenants();
        robot.clickOn("#apiToken").write(ADMIN);
        robot.clickOn("#tenant").write("acme");
        connect(robot);

        untilText(robot, "#tenantLabel", "Tenant acme");
        robot.clickOn("#tab-jobs");
        cell(robot, "jobsTable", "acme-ingest");
        until(() -> jobNames(robot).equals(List.of("acme-ingest")));
        assertThat(tenantColumnVisible(robot, "jobsTable")).isTrue();
        assertThat(server.tenantHeaders()).isNotEmpty().containsOnly("acme");
        assertThat(settings.get("tenant", null)).isEqualTo("acme");
    }

    @Test
    void aTenantBoundTokenSeesItsJobsAndWhyTheClusterViewsAreEmpty(FxRobot robot) {
        twoTenants();
        robot.clickOn("#apiToken").write(ACME);
        connect(robot);

        String message = "This token is bound to tenant acme; cluster views need a cluster-wide token.";
        untilText(robot, "#clusterNote", message);
        untilText(robot, "#tenantLabel", "Tenant acme (this token's)");
        untilText(robot, "#liveStatus", "the event stream is cluster-wide");
        assertThat(text(robot, "#nodesPlaceholder")).isEqualTo(message);
        assertThat(robot.lookup("#stat-pending").query().isVisible() && robot.lookup("#stat-pending").query()
                .getParent().getParent().isVisible()).as("the cluster's counts are not shown").isFalse();
        assertThat(text(robot, "#overviewProblem")).isEmpty();

        robot.clickOn("#tab-jobs");
        cell(robot, "jobsTable", "acme-ingest");
        until(() -> jobNames(robot).equals(List.of("acme-ingest")));
        assertThat(tenantColumnVisible(robot, "jobsTable")).isTrue();
    }

    @Test
    void aSingleTenantClusterLooksAsBefore(FxRobot robot) {
        open(s -> { });
        connect(robot);

        robot.clickOn("#tab-jobs");
        cell(robot, "jobsTable", "nightly-report");
        assertThat(tenantColumnVisible(robot, "jobsTable")).isFalse();
        robot.clickOn("#tab-runs");
        cell(robot, "runsTable", "sync-crm");
        assertThat(tenantColumnVisible(robot, "runsTable")).isFalse();
        assertThat(robot.lookup("#clusterNote").tryQuery().map(n -> n.isVisible()).orElse(false)).isFalse();
    }

    void fieldText(FxRobot robot, String id, String value) {
        robot.doubleClickOn(id);
        onFx(() -> {
            ((javafx.scene.control.TextField) robot.lookup(id).query()).setText("");
            return null;
        });
        robot.write(value);
    }

    @Test
    void anAdminSetsATenantsWeightAndSeesTheServersMessageBesideTheField(FxRobot robot) {
        open(s -> s.requireToken(ADMIN).withTenant(new io.forgeflow.client.Tenant("acme", 1, null, null, 4, 1, 0)));
        robot.clickOn("#apiToken").write(ADMIN);
        connect(robot);

        robot.clickOn("#tab-tenants");
        cell(robot, "tenantsTable", "default");
        robot.clickOn(cell(robot, "tenantsTable", "acme"));
        untilText(robot, "#tenantEditTitle", "Tenant acme");
        assertThat(text(robot, "#tenantWeight")).isEqualTo("1");

        fieldText(robot, "#tenantWeight", "1001");
        robot.clickOn("#saveTenant");
        untilText(robot, "#tenantError-weight", "weight must be between 1 and 1000, or null for 1, was 1001");
        assertThat(server.tenant("acme").weight()).isEqualTo(1);

        fieldText(robot, "#tenantWeight", "3");
        fieldText(robot, "#tenantMaxRunning", "5");
        fieldText(robot, "#tenantRateCount", "10");
        fieldText(robot, "#tenantRatePer", "60");
        robot.clickOn("#saveTenant");
        untilText(robot, "#tenantsMessage", "Saved tenant acme: weight 3, limits max 5 running, 10 per 60 s (0 used).");
        cell(robot, "tenantsTable", "max 5 running, 10 per 60 s (0 used)");
        assertThat(server.tenant("acme")).isEqualTo(new io.forgeflow.client.Tenant("acme", 3, 5,
                new io.forgeflow.client.Tenant.RateLimit(10, 60), 4, 1, 0));
        assertThat(server.requests()).contains("PUT /api/tenants/acme");
        assertThat(robot.lookup("#tenantError-weight").query().isVisible()).isFalse();
    }

    @Test
    void aTenantBoundTokensTenantsTabSaysWhyAndNeverAsks(FxRobot robot) {
        twoTenants();
        robot.clickOn("#apiToken").write(ACME);
        connect(robot);
        untilText(robot, "#tenantLabel", "Tenant acme (this token's)");

        robot.clickOn("#tab-tenants");
        untilText(robot, "#tenantsRefused", "This token is bound to tenant acme; tenants' weights and limits are "
                + "cluster-wide: they need a cluster-wide token.");
        assertThat(robot.lookup("#tenantsTable").query().isVisible()).isFalse();
        assertThat(server.requests()).noneMatch(r -> r.contains("/api/tenants"));
    }
}
