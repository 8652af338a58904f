package io.forgeflow.server;

import io.forgeflow.domain.port.QueueStats;
import io.forgeflow.domain.port.QueueStats.TenantLoad;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** forgeflow_tenant_runs' series: default always, the busiest tenants each, the rest as one bounded series. */
class TenantMetricsTest {
    static QueueStats.Snapshot snapshot(long pending, long running, Map<String, TenantLoad> tenants) {
        return new QueueStats.Snapshot(Map.of(RunStatus.PENDING, pending, RunStatus.RUNNING, running), Duration.ZERO,
                0, tenants);
    }

    @Test
    void oneTenantIsDefaultAlone() {
        assertThat(ForgeFlowMetrics.topTenants(snapshot(7, 2, Map.of()), 20))
                .containsExactly(Map.entry("default", new TenantLoad(7, 2)));
    }

    @Test
    void theDefaultTenantHasWhatTheOthersLeave() {
        Map<String, TenantLoad> series = ForgeFlowMetrics.topTenants(snapshot(10, 4,
                Map.of("acme", new TenantLoad(6, 1), "beta", new TenantLoad(1, 3))), 20);

        assertThat(series).containsExactly(Map.entry("default", new TenantLoad(3, 0)),
                Map.entry("acme", new TenantLoad(6, 1)), Map.entry("beta", new TenantLoad(1, 3)));
    }

    @Test
    void pastTheTopTheRestIsOneSeriesThatNoTenantCanBeNamed() {
        Map<String, TenantLoad> tenants = new HashMap<>();
        for (int i = 0; i < 25; i++) {
            tenants.put("t" + i, new TenantLoad(i, 0));
        }
        Map<String, TenantLoad> series = ForgeFlowMetrics.topTenants(snapshot(300, 0, tenants), 20);

        assertThat(series).hasSize(22).containsKeys("default", "t24", "t5", "(other)").doesNotContainKeys("t4", "t0");
        assertThat(series.get("(other)")).isEqualTo(new TenantLoad(0 + 1 + 2 + 3 + 4, 0));
        assertThat(series.get("default")).isEqualTo(new TenantLoad(0, 0));
        assertThat(io.forgeflow.domain.tenant.Tenants.isValid(ForgeFlowMetrics.OTHER_TENANTS)).isFalse();
    }

    @Test
    void tiesAreBrokenByName() {
        Map<String, TenantLoad> series = ForgeFlowMetrics.topTenants(snapshot(2, 0,
                Map.of("b", new TenantLoad(1, 0), "a", new TenantLoad(1, 0))), 1);

        assertThat(series).containsOnlyKeys("default", "a", "(other)");
    }
}
