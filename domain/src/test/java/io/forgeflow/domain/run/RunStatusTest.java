package io.forgeflow.domain.run;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunStatusTest {

    @ParameterizedTest(name = "{0} -> {1}: {2}")
    @CsvSource({
            "PENDING, PENDING, false", "PENDING, RUNNING, true", "PENDING, SUCCEEDED, false", "PENDING, DEAD, false", "PENDING, CANCELLED, true",
            "RUNNING, PENDING, true", "RUNNING, RUNNING, false", "RUNNING, SUCCEEDED, true", "RUNNING, DEAD, true", "RUNNING, CANCELLED, true",
            "SUCCEEDED, PENDING, false", "SUCCEEDED, RUNNING, false", "SUCCEEDED, SUCCEEDED, false", "SUCCEEDED, DEAD, false", "SUCCEEDED, CANCELLED, false",
            "DEAD, PENDING, true", "DEAD, RUNNING, false", "DEAD, SUCCEEDED, false", "DEAD, DEAD, false", "DEAD, CANCELLED, false",
            "CANCELLED, PENDING, true", "CANCELLED, RUNNING, false", "CANCELLED, SUCCEEDED, false", "CANCELLED, DEAD, false", "CANCELLED, CANCELLED, false",
            "WAITING, PENDING, true", "WAITING, CANCELLED, true", "WAITING, RUNNING, false", "WAITING, SUCCEEDED, false",
            "WAITING, DEAD, false", "WAITING, WAITING, false", "PENDING, WAITING, false", "DEAD, WAITING, false",
            "CANCELLED, WAITING, true", "RUNNING, WAITING, false", "SUCCEEDED, WAITING, false"})
    void theTransitionTableAllowsExactlyTheArrowsOfTheLifecycle(RunStatus from, RunStatus to, boolean allowed) {
        assertThat(from.canMoveTo(to)).isEqualTo(allowed);
    }

    @ParameterizedTest
    @CsvSource({"WAITING, false", "PENDING, false", "RUNNING, false", "SUCCEEDED, true", "DEAD, true", "CANCELLED, true"})
    void terminalStatusesAreSucceededDeadAndCancelled(RunStatus status, boolean terminal) {
        assertThat(status.isTerminal()).isEqualTo(terminal);
    }

    @ParameterizedTest
    @EnumSource(RunStatus.class)
    void wireNamesRoundTrip(RunStatus status) {
        assertThat(RunStatus.fromWire(status.wireName())).isEqualTo(status);
        assertThat(status.wireName()).isEqualTo(status.name().toLowerCase());
    }

    @org.junit.jupiter.api.Test
    void anUnknownWireNameIsRefusedWithTheAcceptedValues() {
        assertThatThrownBy(() -> RunStatus.fromWire("done"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("done").hasMessageContaining("pending, running, succeeded, dead, cancelled");
    }
}
