package io.forgeflow.admin.queues;

import io.forgeflow.admin.queues.QueueListViewModel.Field;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import io.forgeflow.client.Queue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Queues screen's view model against the in-memory cluster: every tenant's queues with their state and limits as
 * text, pause (after a confirmation) and resume of the selected row in its own tenant, the limits form sending only
 * what changed (an emptied field clears that limit), and the server's refusal next to the field it names.
 */
class QueueListViewModelTest {
    static final Queue ACME_REPORTS = new Queue("reports", false, 5, new Queue.RateLimit(100, 60), 7, 5, 2, 12.34,
            40, "acme");
    static final Queue DEFAULT = new Queue("default", false, null, null, 1, 1, 0, 0, 0, "default");
    static final Queue REPORTS = new Queue("reports", true, 2, null, 3, 0, 0, 0, 0, "default");

    final FakeClusterClient cluster = new FakeClusterClient().withQueue(DEFAULT).withQueue(REPORTS)
            .withQueue(ACME_REPORTS);
    final QueueListViewModel vm = new QueueListViewModel(cluster, Async.sameThread());

    @BeforeEach
    void load() {
        vm.refresh();
    }

    @Test
    void theListShowsEveryTenantsQueuesByTenantThenNameWithTheirCounts() {
        assertThat(vm.queues()).containsExactly(ACME_REPORTS, DEFAULT, REPORTS);
        assertThat(vm.countProperty().get()).isEqualTo("3 queues, 1 paused; 6 due, 2 running");
        assertThat(vm.tenantColumnVisibleProperty().get()).as("acme's row is outside default").isTrue();
        assertThat(vm.canPauseProperty().get()).as("nothing selected").isFalse();
        assertThat(vm.canSaveProperty().get()).isFalse();
    }

    @Test
    void queuesReadAsText() {
        assertThat(QueueListViewModel.stateOf(REPORTS)).isEqualTo("paused");
        assertThat(QueueListViewModel.stateOf(DEFAULT)).isEqualTo("open");
        assertThat(QueueListViewModel.maxRunningOf(ACME_REPORTS)).isEqualTo("5");
        assertThat(QueueListViewModel.maxRunningOf(DEFAULT)).isEqualTo("none");
        assertThat(QueueListViewModel.rateLimitOf(ACME_REPORTS)).isEqualTo("100 per 60 s (40 used)");
        assertThat(QueueListViewModel.rateLimitOf(REPORTS)).isEqualTo("none");
        assertThat(QueueListViewModel.limitsOf(ACME_REPORTS)).isEqualTo("max 5 running, 100 per 60 s (40 used)");
        assertThat(QueueListViewModel.limitsOf(REPORTS)).isEqualTo("max 2 running");
        assertThat(QueueListViewModel.limitsOf(DEFAULT)).isEqualTo("none");
        assertThat(QueueListViewModel.describe(ACME_REPORTS)).isEqualTo("reports (tenant acme)");
        assertThat(QueueListViewModel.describe(REPORTS)).isEqualTo("reports");
        assertThat(QueueListViewModel.tenantOf(new Queue("q", false, null, null, 0, 0, 0, 0, 0))).isEqualTo("default");
        assertThat(QueueListViewModel.lagOf(DEFAULT)).isEqualTo("0 s");
        assertThat(QueueListViewModel.lagOf(ACME_REPORTS)).isEqualTo("12.3 s");
        assertThat(QueueListViewModel.lagOf(lag(245.5))).isEqualTo("4 min 05 s");
        assertThat(QueueListViewModel.lagOf(lag(7380))).isEqualTo("2 h 03 min");
    }

    @Test
    void oneTenantsQueuesHideTheTenantColumn() {
        FakeClusterClient one = new FakeClusterClient().withQueue(DEFAULT).withQueue(ACME_REPORTS);
        one.inTenant("default");
        QueueListViewModel oneVm = new QueueListViewModel(one, Async.sameThread());
        oneVm.refresh();

        assertThat(oneVm.queues()).containsExactly(DEFAULT);
        assertThat(oneVm.tenantColumnVisibleProperty().get()).isFalse();
        assertThat(oneVm.countProperty().get()).isEqualTo("1 queue, 0 paused; 1 due, 0 running");
    }

    @Test
    void pausingAsksFirstNamingTheTenantThenPausesThatTenantsQueueOnly() {
        vm.selectedProperty().set(ACME_REPORTS);
        assertThat(vm.canPauseProperty().get()).isTrue();
        assertThat(vm.canResumeProperty().get()).isFalse();

        vm.pauseSelected();
        assertThat(vm.confirmationProperty().get().question()).isEqualTo("Pause queue reports (tenant acme)? No run "
                + "of it starts on any node until it is resumed; running runs go on.");
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("pauseQueue"));
        vm.poll();
        assertThat(cluster.calls()).as("no poll while the question is open").containsOnlyOnce("queues");

        vm.confirm();
        assertThat(cluster.calls()).contains("pauseQueue acme reports");
        assertThat(cluster.queue("acme", "reports").paused()).isTrue();
        assertThat(vm.queues().get(0).paused()).isTrue();
        assertThat(vm.selectedProperty().get().paused()).isTrue();
        assertThat(vm.canResumeProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).isEqualTo("Paused queue reports (tenant acme).");
        assertThat(vm.countProperty().get()).startsWith("3 queues, 2 paused;");
        assertThat(cluster.queue("default", "reports")).isEqualTo(REPORTS);
    }

    @Test
    void aDefaultQueueIsPausedWithoutNamingATenantAndDismissingChangesNothing() {
        vm.selectedProperty().set(DEFAULT);
        vm.pauseSelected();
        assertThat(vm.confirmationProperty().get().question()).startsWith("Pause queue default? ");
        vm.dismiss();
        assertThat(vm.confirmationProperty().get()).isNull();
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("pauseQueue"));
        assertThat(cluster.queue("default", "default").paused()).isFalse();
    }

    @Test
    void resumingActsAtOnce() {
        vm.selectedProperty().set(REPORTS);
        assertThat(vm.canPauseProperty().get()).isFalse();
        vm.resumeSelected();

        assertThat(vm.confirmationProperty().get()).isNull();
        assertThat(cluster.calls()).contains("resumeQueue default reports");
        assertThat(vm.queues().get(2).paused()).isFalse();
        assertThat(vm.messageProperty().get()).isEqualTo("Resumed queue reports.");
    }

    @Test
    void selectingAQueueFillsTheFormAndSavingSendsOnlyWhatChangedToItsTenant() {
        vm.selectedProperty().set(ACME_REPORTS);
        assertThat(vm.editingProperty().get()).isEqualTo("reports (tenant acme)");
        assertThat(vm.maxRunningProperty().get()).isEqualTo("5");
        assertThat(vm.rateCountProperty().get()).isEqualTo("100");
        assertThat(vm.ratePerSecondsProperty().get()).isEqualTo("60");

        vm.maxRunningProperty().set(" 8 ");
        vm.save();

        assertThat(cluster.calls()).contains("configureQueue acme reports {max_running=8}");
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get())
                .isEqualTo("Saved queue reports (tenant acme): limits max 8 running, 100 per 60 s (40 used).");
        assertThat(vm.queues().get(0).maxRunning()).isEqualTo(8);
        assertThat(cluster.queue("default", "reports")).as("the default tenant's reports is another queue")
                .isEqualTo(REPORTS);
    }

    @Test
    void emptiedFieldsClearTheLimits() {
        vm.selectedProperty().set(ACME_REPORTS);
        vm.maxRunningProperty().set("");
        vm.rateCountProperty().set("");
        vm.ratePerSecondsProperty().set(" ");
        vm.save();

        assertThat(cluster.calls()).contains("configureQueue acme reports {max_running=null, rate_limit=null}");
        assertThat(cluster.queue("acme", "reports")).isEqualTo(new Queue("reports", false, null, null, 7, 5, 2, 12.34,
                0, "acme"));
        assertThat(vm.maxRunningProperty().get()).isEmpty();
        assertThat(vm.messageProperty().get()).isEqualTo("Saved queue reports (tenant acme): limits none.");
    }

    @Test
    void aNewRateLimitIsSentWholeAndTheOtherLimitIsLeftAlone() {
        vm.selectedProperty().set(REPORTS);
        vm.rateCountProperty().set("10");
        vm.ratePerSecondsProperty().set("3600");
        vm.save();

        assertThat(cluster.calls()).contains("configureQueue default reports {rate_limit={count=10, per_seconds=3600}}");
        assertThat(cluster.queue("default", "reports").rateLimit()).isEqualTo(new Queue.RateLimit(10, 3600));
        assertThat(cluster.queue("default", "reports").maxRunning()).isEqualTo(2);
    }

    @Test
    void nothingChangedSendsNothing() {
        vm.selectedProperty().set(ACME_REPORTS);
        vm.save();

        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("configureQueue"));
        assertThat(vm.messageProperty().get()).isEqualTo("Nothing changed.");
        assertThat(vm.failedProperty().get()).isFalse();
    }

    @Test
    void theServersRefusalIsShownInItsWordsNextToTheFieldItNamesAndNothingChanges() {
        vm.selectedProperty().set(ACME_REPORTS);
        vm.maxRunningProperty().set("0");
        vm.save();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.errorFieldProperty().get()).isEqualTo(Field.MAX_RUNNING);
        assertThat(vm.messageProperty().get())
                .isEqualTo("max_running must be between 1 and 100000, or null for no limit, was 0");
        assertThat(cluster.queue("acme", "reports")).isEqualTo(ACME_REPORTS);
        assertThat(vm.queues().get(0)).isEqualTo(ACME_REPORTS);
        assertThat(vm.maxRunningProperty().get()).as("what the operator typed stays").isEqualTo("0");
        assertThat(vm.actingProperty().get()).isFalse();

        vm.maxRunningProperty().set("5");
        vm.ratePerSecondsProperty().set("90000");
        vm.save();
        assertThat(vm.errorFieldProperty().get()).as("rate_limit.per_seconds is the rate limit's")
                .isEqualTo(Field.RATE_LIMIT);
        assertThat(vm.messageProperty().get()).isEqualTo("rate_limit.per_seconds must be between 1 and 86400, was "
                + "90000");

        vm.revert();
        assertThat(vm.errorFieldProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEmpty();
        assertThat(vm.ratePerSecondsProperty().get()).isEqualTo("60");
    }

    @Test
    void whatIsNoNumberIsRefusedBeforeAnythingIsSent() {
        vm.selectedProperty().set(ACME_REPORTS);
        vm.maxRunningProperty().set("five");
        vm.save();
        assertThat(vm.errorFieldProperty().get()).isEqualTo(Field.MAX_RUNNING);
        assertThat(vm.messageProperty().get()).isEqualTo("max_running must be a whole number, was \"five\"");

        vm.maxRunningProperty().set("5");
        vm.rateCountProperty().set("");
        vm.save();
        assertThat(vm.errorFieldProperty().get()).isEqualTo(Field.RATE_LIMIT);
        assertThat(vm.messageProperty().get()).contains("both the starts and the seconds");
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("configureQueue"));
    }

    @Test
    void aTokenWithoutOperateIsToldSoAndNothingChanges() {
        cluster.failNext("pauseQueue", new ForgeFlowApiException(403, "this token lacks the 'operate' scope that "
                + "POST /api/queues/{name}/pause needs", null, "forbidden"));
        vm.selectedProperty().set(DEFAULT);
        vm.pauseSelected();
        vm.confirm();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.errorFieldProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEqualTo("Could not pause queue default: this token lacks the "
                + "'operate' scope that POST /api/queues/{name}/pause needs (HTTP 403)");
        assertThat(vm.queues().get(1).paused()).isFalse();
        assertThat(vm.actingProperty().get()).isFalse();
    }

    @Test
    void aPollKeepsTheFormAsTheOperatorTypedItAndRedrawsNothingWhenNothingChanged() {
        vm.selectedProperty().set(ACME_REPORTS);
        vm.maxRunningProperty().set("4");
        List<Queue> before = List.copyOf(vm.queues());
        int[] changes = {0};
        vm.queues().addListener((javafx.collections.ListChangeListener<Queue>) c -> changes[0]++);
        vm.poll();
        assertThat(changes[0]).as("nothing changed, nothing redrawn").isZero();

        cluster.withQueue(new Queue("reports", false, 5, new Queue.RateLimit(100, 60), 9, 6, 1, 3.5, 41, "acme"));
        vm.poll();
        assertThat(changes[0]).isEqualTo(1);
        assertThat(vm.queues()).isNotEqualTo(before);
        assertThat(vm.queues().get(0).pending()).isEqualTo(9);
        assertThat(vm.selectedProperty().get().pending()).isEqualTo(9);
        assertThat(vm.maxRunningProperty().get()).isEqualTo("4");
        vm.save();
        assertThat(cluster.calls()).contains("configureQueue acme reports {max_running=4}");
    }

    @Test
    void anUnreachableServerIsSaidAndTheListKept() {
        cluster.failNext("queues", new ForgeFlowUnavailableException("GET /api/queues",
                new IOException("Connection refused")));
        vm.refresh();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).startsWith("Could not load the queues: the server is unreachable "
                + "(Connection refused)");
        assertThat(vm.queues()).containsExactly(ACME_REPORTS, DEFAULT, REPORTS);
        assertThat(vm.loadingProperty().get()).isFalse();
    }

    static Queue lag(double seconds) {
        return new Queue("q", false, null, null, 1, 1, 0, seconds, 0, "default");
    }
}
