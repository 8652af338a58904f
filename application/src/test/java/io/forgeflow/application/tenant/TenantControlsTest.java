package io.forgeflow.application.tenant;

import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.tenant.TenantInfo;
import io.forgeflow.domain.tenant.TenantSettings;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TenantControlsTest {
    final InMemoryStore store = new InMemoryStore(Clock.fixed(Instant.parse("2026-12-07T00:00:00Z"), ZoneOffset.UTC));
    final CountingWorkSignal signal = new CountingWorkSignal();
    final TenantControls controls = new TenantControls(store.tenants(), signal);

    @Test
    void whatIsGivenIsSetTheRestKeptAndTheWorkersWoken() {
        controls.configure("acme", true, true, false, new TenantSettings(3, 20, null));
        TenantInfo after = controls.configure("acme", false, false, true,
                new TenantSettings(1, null, new RateLimit(100, 60)));

        assertThat(after.settings()).isEqualTo(new TenantSettings(3, 20, new RateLimit(100, 60)));
        assertThat(controls.get("acme").settings()).isEqualTo(after.settings());
        assertThat(controls.list()).extracting(TenantInfo::name).contains("acme", "default");
        assertThat(signal.count()).isEqualTo(2);
    }

    @Test
    void aNameNobodyUsedReadsAsAnIdleDefaultTenant() {
        TenantInfo idle = controls.get("globex");
        assertThat(idle.settings()).isEqualTo(TenantSettings.DEFAULT);
        assertThat(idle.pending()).isZero();
    }

    @Test
    void aMalformedNameIsRefusedAndNothingChanges() {
        assertThatThrownBy(() -> controls.configure("Not A Tenant", true, false, false, TenantSettings.DEFAULT))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("name"));
        assertThatThrownBy(() -> controls.get("")).isInstanceOf(ValidationException.class);
        assertThat(signal.count()).isZero();
    }
}
