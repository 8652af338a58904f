package io.forgeflow.domain.execution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutorSettingsTest {

    @ParameterizedTest
    @CsvSource({"30000, 10000, 10000", "4000, 1000, 1500", "6000, 1000, 2500", "2000, 1000, 500", "1000, 1000, 500",
            "1999, 1000, 500", "2002, 1000, 501"})
    void theSupervisorSilenceIsHalfOfTheLeaseLeftAfterOneHeartbeatAndAtLeastHalfASecond(long lease, long beat,
                                                                                       long silence) {
        assertThat(ExecutorSettings.supervisorSilenceFor(Duration.ofMillis(lease), Duration.ofMillis(beat)))
                .isEqualTo(Duration.ofMillis(silence));
    }

    @Test
    void theDefaultsAreTheSilenceOfTheDefaultLeaseAndAnOpenNetwork() {
        assertThat(ExecutorSettings.DEFAULT_SUPERVISOR_SILENCE).isEqualTo(Duration.ofSeconds(10));
        assertThat(ExecutorSettings.unguarded()).isEqualTo(new ExecutorSettings(true, Duration.ofSeconds(10)));
        assertThat(new ExecutorSettings(false).supervisorSilence()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aSilenceMustBePositive() {
        assertThatThrownBy(() -> new ExecutorSettings(true, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("supervisorSilence");
        assertThatThrownBy(() -> new ExecutorSettings(true, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThat(new ExecutorSettings(true, Duration.ofMillis(1)).supervisorSilence()).isEqualTo(Duration.ofMillis(1));
    }
}
