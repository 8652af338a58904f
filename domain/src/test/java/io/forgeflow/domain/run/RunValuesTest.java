package io.forgeflow.domain.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunValuesTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @ParameterizedTest
    @EnumSource(AttemptOutcome.class)
    void attemptOutcomeWireNamesRoundTrip(AttemptOutcome outcome) {
        assertThat(outcome.wireName()).isEqualTo(outcome.name().toLowerCase());
        assertThat(AttemptOutcome.fromWire(outcome.wireName())).isEqualTo(outcome);
    }

    @Test
    void attemptsCountFromOne() {
        assertThat(new Attempt("r1", 1, "w1", T0, null, null, null).attempt()).isEqualTo(1);
        assertThatThrownBy(() -> new Attempt("r1", 0, "w1", T0, null, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attempt must be >= 1, was 0");
    }

    @Test
    void aChangeReportsTheRunAsItIsNow() {
        Run running = new Run("r1", "j1", RunStatus.RUNNING, 1, 3, 5, T0, T0, null, "w1", T0.plusSeconds(30), null,
                null, "shell", Map.of(), 60, false, T0);
        assertThat(RunChange.of(running, "w1", T0.plusSeconds(1)))
                .isEqualTo(new RunChange("r1", "j1", RunStatus.RUNNING, 1, "w1", T0.plusSeconds(1)));
    }

    @Test
    void aChangeBeforeTheFirstAttemptHasAttemptZeroAndNeverLess() {
        assertThat(new RunChange("r1", "j1", RunStatus.PENDING, 0, null, T0).attempt()).isZero();
        assertThatThrownBy(() -> new RunChange("r1", "j1", RunStatus.PENDING, -1, null, T0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attempt must be >= 0, was -1");
    }
}
