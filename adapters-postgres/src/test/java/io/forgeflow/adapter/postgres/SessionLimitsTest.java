package io.forgeflow.adapter.postgres;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SessionLimitsTest {
    final SessionLimits limits = new SessionLimits(Duration.ofSeconds(30), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ZERO);

    @Test
    void optionsCarryEachLimitInMilliseconds() {
        assertThat(limits.options()).isEqualTo(
                "-c statement_timeout=30000 -c lock_timeout=5000 -c idle_in_transaction_session_timeout=10000");
    }

    @Test
    void anIdleSessionLimitIsAddedOnlyWhenAskedFor() {
        assertThat(limits.withIdleSession(Duration.ofMillis(1500)).options())
                .endsWith(" -c idle_session_timeout=1500");
    }

    @Test
    void negativeLimitsAreRefused() {
        assertThatThrownBy(() -> limits.withIdleSession(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
    }

    @ParameterizedTest
    @CsvSource({"57014, true", "55P03, true", "25P03, true", "57P05, true", "57P01, false", "23505, false"})
    void limitErrorsAreRecognisedBySqlState(String state, boolean hit) {
        assertThat(SessionLimits.isLimitHit(state)).isEqualTo(hit);
    }
}
