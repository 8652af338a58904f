package io.forgeflow.admin.ui;

import io.forgeflow.client.Queue;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Queues tab in the real app against the scripted server: pausing another tenant's queue from the table (after a
 * confirmation naming the tenant) acts on that tenant's queue only, the limits form sends what changed and shows the
 * server's refusal beside its field, and a tenant-bound token sees and acts on its own tenant's queues.
 */
class QueuesUiTest extends UiTestSupport {
    static final String ADMIN = "admin-token-0123";
    static final String ACME = "acme-token-0123";

    static Queue queue(String name, boolean paused, String tenant) {
        return new Queue(name, paused, null, null, 4, 3, 1, 2.5, 0, tenant);
    }

    boolean tenantColumnVisible(FxRobot robot) {
        return onFx(() -> {
            TableView<?> table = robot.lookup("#queuesTable").queryAs(TableView.class);
            return table.getColumns().stream().filter(c -> "Tenant".equals(c.getText()))
                    .map(TableColumn::isVisible).findFirst().orElseThrow();
        });
    }

    @SuppressWarnings("unchecked")
    List<String> rows(FxRobot robot) {
        return onFx(() -> ((TableView<Queue>) robot.lookup("#queuesTable").queryAs(TableView.class)).getItems()
                .stream().map(q -> q.tenant() + "/" + q.name() + (q.paused() ? " paused" : "")).toList());
    }

    void fieldText(FxRobot robot, String id, String value) {
        robot.clickOn(id);
        onFx(() -> {
            ((javafx.scene.control.TextField) robot.lookup(id).query()).setText("");
            return null;
        });
        robot.write(value);
    }

    @Test
    void anOperatorPausesAnotherTenantsQueueFromTheTableAndResumesIt(FxRobot robot) {
        open(s -> s.requireToken(ADMIN).withQueue(queue("reports", false, "default"))
                .withQueue(queue("reports", false, "acme")));
        robot.clickOn("#apiToken").write(ADMIN);
        connect(robot);

        robot.clickOn("#tab-queues");
        robot.clickOn(cell(robot, "queuesTable", "acme"));
        assertThat(tenantColumnVisible(robot)).isTrue();
        untilText(robot, "#queueEditTitle", "Queue reports (tenant acme)");
        untilText(robot, "#queuesCount", "2 queues, 0 paused; 6 due, 2 running");

        robot.clickOn("#pauseQueue");
        untilText(robot, "#queueConfirmQuestion", "Pause queue reports (tenant acme)? No run of it starts");
        assertThat(server.requests()).noneMatch(r -> r.contains("/pause"));
        robot.clickOn("#queueConfirmYes");
        untilText(robot, "#queuesMessage", "Paused queue reports (tenant acme).");
        cell(robot, "queuesTable", "paused");
        assertThat(rows(robot)).containsExactly("acme/reports paused", "default/reports");
        assertThat(server.queue("acme", "reports").paused()).isTrue();
        assertThat(server.queue("default", "reports").paused()).isFalse();
        assertThat(server.requests()).contains("POST /api/queues/reports/pause");
        assertThat(server.tenantHeaders()).contains("acme");

        robot.clickOn("#resumeQueue");
        untilText(robot, "#queuesMessage", "Resumed queue reports (tenant acme).");
        assertThat(server.queue("acme", "reports").paused()).isFalse();
    }

    @Test
    void anOperatorSetsAQueuesLimitsAndSeesTheServersRefusalBesideTheField(FxRobot robot) {
        open(s -> s.requireToken(ADMIN).withQueue(queue("default", false, "default"))
                .withQueue(queue("reports", false, "default")));
        robot.clickOn("#apiToken").write(ADMIN);
        connect(robot);

        robot.clickOn("#tab-queues");
        cell(robot, "queuesTable", "default");
        robot.clickOn(cell(robot, "queuesTable", "reports"));
        assertThat(tenantColumnVisible(robot)).as("one tenant looks as it always did").isFalse();
        untilText(robot, "#queueEditTitle", "Queue reports");

        fieldText(robot, "#queueMaxRunning", "0");
        robot.clickOn("#saveQueue");
        untilText(robot, "#queueError-max-running", "max_running must be between 1 and 100000, or null for no limit, "
                + "was 0");
        assertThat(server.queue("default", "reports").maxRunning()).isNull();

        fieldText(robot, "#queueMaxRunning", "3");
        fieldText(robot, "#queueRateCount", "10");
        fieldText(robot, "#queueRatePer", "60");
        robot.clickOn("#saveQueue");
        untilText(robot, "#queuesMessage", "Saved queue reports: limits max 3 running, 10 per 60 s (0 used).");
        cell(robot, "queuesTable", "10 per 60 s (0 used)");
        assertThat(server.queue("default", "reports")).isEqualTo(new Queue("reports", false, 3,
                new Queue.RateLimit(10, 60), 4, 3, 1, 2.5, 0, "default"));
        assertThat(server.queue("default", "default").maxRunning()).isNull();
        assertThat(server.requests()).contains("PUT /api/queues/reports");
        assertThat(robot.lookup("#queueError-max-running").query().isVisible()).isFalse();

        fieldText(robot, "#queueRateCount", "");
        fieldText(robot, "#queueRatePer", "");
        robot.clickOn("#saveQueue");
        untilText(robot, "#queuesMessage", "Saved queue reports: limits max 3 running.");
        assertThat(server.queue("default", "reports").rateLimit()).as("an emptied field clears the limit").isNull();
    }

    @Test
    void aTenantBoundTokenSeesAndPausesItsOwnTenantsQueues(FxRobot robot) {
        open(s -> s.requireToken(ADMIN).bindToken(ACME, "acme").withQueue(queue("reports", false, "default"))
                .withQueue(queue("ingest", false, "acme")));
        robot.clickOn("#apiToken").write(ACME);
        connect(robot);
        untilText(robot, "#tenantLabel", "Tenant acme (this token's)");

        robot.clickOn("#tab-queues");
        robot.clickOn(cell(robot, "queuesTable", "ingest"));
        assertThat(rows(robot)).containsExactly("acme/ingest");
        robot.clickOn("#pauseQueue");
        robot.clickOn("#queueConfirmYes");
        untilText(robot, "#queuesMessage", "Paused queue ingest (tenant acme).");
        assertThat(server.queue("acme", "ingest").paused()).isTrue();
    }
}
