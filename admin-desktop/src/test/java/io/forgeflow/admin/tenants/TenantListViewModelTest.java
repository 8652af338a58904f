package io.forgeflow.admin.tenants;

import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.admin.tenants.TenantListViewModel.Field;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import io.forgeflow.client.Tenant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Tenants screen's view model against the in-memory cluster: the list and its limits as text, the form sending
 * only what changed (an emptied field is the default), the server's message next to the field it names, and a
 * tenant-bound token told why there is nothing to see.
 */
class TenantListViewModelTest {
    static final Tenant ACME = new Tenant("acme", 3, 5, new Tenant.RateLimit(10, 60), 7, 2, 4);
    static final Tenant DEFAULT = new Tenant("default", 1, null, null, 1, 0, 0);

    final FakeClusterClient cluster = new FakeClusterClient().withTenant(ACME).withTenant(DEFAULT);
    final TenantListViewModel vm = new TenantListViewModel(cluster, Async.sameThread());

    @BeforeEach
    void load() {
        vm.refresh();
    }

    @Test
    void theListShowsEveryTenantWithItsLimitsAsText() {
        assertThat(vm.tenants()).containsExactly(ACME, DEFAULT);
        assertThat(vm.countProperty().get()).isEqualTo("2 tenants");
        assertThat(TenantListViewModel.limitsOf(ACME)).isEqualTo("max 5 running, 10 per 60 s (4 used)");
        assertThat(TenantListViewModel.limitsOf(DEFAULT)).isEqualTo("none");
        assertThat(TenantListViewModel.limitsOf(new Tenant("x", 1, 3, null, 0, 0, 0))).isEqualTo("max 3 running");
        assertThat(vm.refusedProperty().get()).isEmpty();
        assertThat(vm.canSaveProperty().get()).as("nothing selected").isFalse();
    }

    @Test
    void selectingATenantFillsTheFormAndSavingSendsOnlyWhatChanged() {
        vm.selectedProperty().set(ACME);
        assertThat(vm.editingProperty().get()).isEqualTo("acme");
        assertThat(vm.weightProperty().get()).isEqualTo("3");
        assertThat(vm.maxRunningProperty().get()).isEqualTo("5");
        assertThat(vm.rateCountProperty().get()).isEqualTo("10");
        assertThat(vm.ratePerSecondsProperty().get()).isEqualTo("60");
        assertThat(vm.canSaveProperty().get()).isTrue();

        vm.weightProperty().set(" 8 ");
        vm.save();

        assertThat(cluster.calls()).contains("configureTenant acme {weight=8}");
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get())
                .isEqualTo("Saved tenant acme: weight 8, limits max 5 running, 10 per 60 s (4 used).");
        assertThat(vm.tenants().get(0).weight()).isEqualTo(8);
        assertThat(vm.selectedProperty().get().weight()).isEqualTo(8);
    }

    @Test
    void emptiedFieldsAreTheDefaultsWeightOneAndNoLimits() {
        vm.selectedProperty().set(ACME);
        vm.weightProperty().set("");
        vm.maxRunningProperty().set("");
        vm.rateCountProperty().set("");
        vm.ratePerSecondsProperty().set("");
        vm.save();

        assertThat(cluster.calls()).contains("configureTenant acme {weight=null, max_running=null, rate_limit=null}");
        assertThat(cluster.tenantByName("acme")).isEqualTo(new Tenant("acme", 1, null, null, 7, 2, 0));
        assertThat(vm.weightProperty().get()).isEqualTo("1");
        assertThat(vm.rateCountProperty().get()).isEmpty();
    }

    @Test
    void aNewRateLimitIsSentWhole() {
        vm.selectedProperty().set(DEFAULT);
        vm.rateCountProperty().set("100");
        vm.ratePerSecondsProperty().set("3600");
        vm.save();

        assertThat(cluster.calls()).contains("configureTenant default {rate_limit={count=100, per_seconds=3600}}");
        assertThat(vm.tenants().get(1).rateLimit()).isEqualTo(new Tenant.RateLimit(100, 3600));
    }

    @Test
    void nothingChangedSendsNothing() {
        vm.selectedProperty().set(ACME);
        vm.save();

        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("configureTenant"));
        assertThat(vm.messageProperty().get()).isEqualTo("Nothing changed.");
        assertThat(vm.failedProperty().get()).isFalse();
    }

    @Test
    void theServersRefusalIsShownInItsWordsNextToTheFieldItNames() {
        vm.selectedProperty().set(ACME);
        vm.weightProperty().set("1001");
        vm.save();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.errorFieldProperty().get()).isEqualTo(Field.WEIGHT);
        assertThat(vm.messageProperty().get())
                .isEqualTo("weight must be a whole number from 1 to 1000 (1 when not set); was 1001");
        assertThat(cluster.tenantByName("acme")).isEqualTo(ACME);
        assertThat(vm.weightProperty().get()).as("what the operator typed stays").isEqualTo("1001");

        vm.weightProperty().set("3");
        vm.rateCountProperty().set("0");
        vm.save();
        assertThat(vm.errorFieldProperty().get()).as("rate_limit.count is the rate limit's").isEqualTo(Field.RATE_LIMIT);
        assertThat(vm.messageProperty().get()).startsWith("rate_limit.count must be between 1 and 1000000");

        vm.revert();
        assertThat(vm.errorFieldProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEmpty();
        assertThat(vm.rateCountProperty().get()).isEqualTo("10");
    }

    @Test
    void whatIsNoNumberIsRefusedBeforeAnythingIsSent() {
        vm.selectedProperty().set(ACME);
        vm.maxRunningProperty().set("five");
        vm.save();
        assertThat(vm.errorFieldProperty().get()).isEqualTo(Field.MAX_RUNNING);
        assertThat(vm.messageProperty().get()).isEqualTo("max_running must be a whole number, was \"five\"");

        vm.maxRunningProperty().set("5");
        vm.ratePerSecondsProperty().set("");
        vm.save();
        assertThat(vm.errorFieldProperty().get()).isEqualTo(Field.RATE_LIMIT);
        assertThat(vm.messageProperty().get()).contains("both the starts and the seconds");
        assertThat(cluster.calls()).noneMatch(c -> c.startsWith("configureTenant"));
    }

    @Test
    void aTokenWithoutAdminIsToldSoAndNothingChanges() {
        cluster.failNext("configureTenant", new ForgeFlowApiException(403, "this token lacks the 'admin' scope that "
                + "PUT /api/tenants/{name} needs", null, "forbidden"));
        vm.selectedProperty().set(ACME);
        vm.weightProperty().set("9");
        vm.save();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.errorFieldProperty().get()).isNull();
        assertThat(vm.messageProperty().get()).isEqualTo("Could not save tenant acme: this token lacks the 'admin' "
                + "scope that PUT /api/tenants/{name} needs (HTTP 403)");
        assertThat(vm.savingProperty().get()).isFalse();
    }

    @Test
    void aRefreshKeepsTheFormAsTheOperatorTypedIt() {
        vm.selectedProperty().set(ACME);
        vm.weightProperty().set("4");
        cluster.withTenant(new Tenant("acme", 3, 5, new Tenant.RateLimit(10, 60), 9, 1, 5));
        vm.poll();

        assertThat(vm.tenants().get(0).pending()).isEqualTo(9);
        assertThat(vm.weightProperty().get()).isEqualTo("4");
        vm.save();
        assertThat(cluster.calls()).contains("configureTenant acme {weight=4}");
    }

    @Test
    void anUnreachableServerIsSaidOnce() {
        cluster.failNext("tenants", new ForgeFlowUnavailableException("GET /api/tenants",
                new IOException("Connection refused")));
        vm.refresh();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).startsWith("Could not load the tenants: the server is unreachable "
                + "(Connection refused)");
        assertThat(vm.tenants()).containsExactly(ACME, DEFAULT);
    }

    @Test
    void aTenantBoundTokenIsRefusedTheListAndToldWhy() {
        cluster.failNext("tenants", new ForgeFlowApiException(403, "this token acts in tenant 'acme' only, and GET "
                + "/api/tenants is cluster-wide: use a cluster-wide token (FORGEFLOW_API_TOKENS)", null,
                "tenant_forbidden"));
        vm.refresh();

        assertThat(vm.tenants()).isEmpty();
        assertThat(vm.refusedProperty().get()).isEqualTo("This token is bound to tenant acme; tenants' weights and "
                + "limits are cluster-wide: they need a cluster-wide token.");
        assertThat(vm.failedProperty().get()).isFalse();
        int calls = cluster.calls().size();
        vm.refresh();
        vm.poll();
        assertThat(cluster.calls()).as("not asked again").hasSize(calls);
    }

    @Test
    void aTokenKnownToBeBoundNeverAsks() {
        FakeClusterClient bound = new FakeClusterClient().withTenant(ACME);
        TenantListViewModel boundVm = new TenantListViewModel(bound, Async.sameThread());
        boundVm.boundTo("beta");
        boundVm.refresh();

        assertThat(bound.calls()).isEmpty();
        assertThat(boundVm.refusedProperty().get()).startsWith("This token is bound to tenant beta;");
    }
}
