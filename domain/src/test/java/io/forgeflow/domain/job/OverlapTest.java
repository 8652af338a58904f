package io.forgeflow.domain.job;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OverlapTest {

    @ParameterizedTest
    @CsvSource({"allow, ALLOW", "skip, SKIP", "queue_one, QUEUE_ONE", "cancel_running, CANCEL_RUNNING"})
    void theWireNamesAreTheApisLowerCaseNames(String wire, Overlap overlap) {
        assertThat(overlap.wireName()).isEqualTo(wire);
        assertThat(Overlap.fromWire(wire)).isEqualTo(overlap);
    }

    @ParameterizedTest
    @EnumSource(Overlap.class)
    void everyPolicyRoundTrips(Overlap overlap) {
        assertThat(Overlap.fromWire(overlap.wireName())).isSameAs(overlap);
    }

    @Test
    void thereAreExactlyFourPolicies() {
        assertThat(Overlap.values()).containsExactly(Overlap.ALLOW, Overlap.SKIP, Overlap.QUEUE_ONE,
                Overlap.CANCEL_RUNNING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "never", "ALLOW", "Skip", "queue-one", "queueOne", "cancel", " skip", "skip "})
    void anythingElseIsRefusedListingThePolicies(String wire) {
        assertThatThrownBy(() -> Overlap.fromWire(wire))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown overlap '" + wire + "': use allow, skip, queue_one or cancel_running");
    }

    @Test
    void nullIsRefused() {
        assertThatThrownBy(() -> Overlap.fromWire(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown overlap 'null'");
    }
}
