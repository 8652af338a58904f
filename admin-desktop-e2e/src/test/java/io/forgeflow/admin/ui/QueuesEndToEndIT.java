package io.forgeflow.admin.ui;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.Queue;
import javafx.scene.control.TableView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Queues tab against the real node ({@code server/target/forgeflow.jar} on PostgreSQL, started as
 * TenantsEndToEndIT starts it): acme's and the default tenant's queue {@code reports} are two queues; a cluster-wide
 * admin without a tenant sets acme's limits and pauses it from the desktop, the node's refusal shows beside its
 * field, and REST reads acme's queue changed and the default tenant's unchanged.
 */
class QueuesEndToEndIT extends UiTestSupport {
    static final String ADMIN_TOKEN = "e2e-queues-admin-0123456789";
        private static E2eNode node;
    private static String nodeUrl;

    @BeforeAll
    static void startNode() throws Exception {
        node = E2eNode.start("queues", Map.of("FORGEFLOW_API_TOKENS", "admin:" + ADMIN_TOKEN));
        nodeUrl = node.url;
        try (ForgeFlowClient client = ForgeFlowClient.builder(nodeUrl).token(ADMIN_TOKEN).build()) {
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
            node.close();
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
}
