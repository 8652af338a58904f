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
}
