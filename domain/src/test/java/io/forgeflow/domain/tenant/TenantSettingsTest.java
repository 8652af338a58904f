package io.forgeflow.domain.tenant;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.RateLimit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TenantSettingsTest {

    @Test
    void weightsFromOneToATousandAreTaken() {
        assertThat(new TenantSettings(1, null, null).weight()).isEqualTo(1);
        assertThat(new TenantSettings(TenantSettings.MAX_WEIGHT, null, null).weight()).isEqualTo(1_000);
        assertThat(TenantSettings.DEFAULT).isEqualTo(new TenantSettings(1, null, null));
    }

    @Test
    void aWeightOutsideOneToATousandNamesTheField() {
        for (int weight : new int[] {0, -1, 1_001}) {
            assertThatThrownBy(() -> new TenantSettings(weight, null, null))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("weight"))
                    .hasMessageContaining("1 to 1000").hasMessageContaining("was " + weight);
        }
    }

    @Test
    void maxRunningIsNullOrOneToAHundredThousand() {
        assertThat(new TenantSettings(1, 1, null).maxRunning()).isEqualTo(1);
        assertThat(new TenantSettings(1, 100_000, null).maxRunning()).isEqualTo(100_000);
        for (int max : new int[] {0, 100_001}) {
            assertThatThrownBy(() -> new TenantSettings(1, max, null))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("max_running"))
                    .hasMessageContaining("was " + max);
        }
    }

    @Test
    void aTenantIsLimitedByEitherLimit() {
        assertThat(TenantSettings.DEFAULT.isLimited()).isFalse();
        assertThat(new TenantSettings(5, null, null).isLimited()).isFalse();
        assertThat(new TenantSettings(1, 3, null).isLimited()).isTrue();
        assertThat(new TenantSettings(1, null, new RateLimit(10, 60)).isLimited()).isTrue();
    }

    @Test
    void anInfoWithoutSettingsHasTheDefaults() {
        TenantInfo info = new TenantInfo("acme", null, 3, 1, 0);
        assertThat(info.settings()).isEqualTo(TenantSettings.DEFAULT);
        assertThatThrownBy(() -> new TenantInfo(null, null, 0, 0, 0)).isInstanceOf(NullPointerException.class);
    }
}
