package io.forgeflow.domain.port;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExpiredLeaseTest {
    static final RunFence FENCE = new RunFence("r1", "w1", 2);

    @Test
    void namesTheLostAttemptItsJobItsBudgetAndWhetherCancelWasAsked() {
        ExpiredLease lease = new ExpiredLease(FENCE, "j1", 1, true);

        assertThat(lease.fence()).isEqualTo(FENCE);
        assertThat(lease.jobId()).isEqualTo("j1");
        assertThat(lease.maxAttempts()).isEqualTo(1);
        assertThat(lease.cancelRequested()).isTrue();
    }

    @Test
    void aBudgetOfNoAttemptIsRefused() {
        assertThatThrownBy(() -> new ExpiredLease(FENCE, "j1", 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxAttempts must be >= 1, was 0");
    }

    @Test
    void theFenceAndTheJobAreRequired() {
        assertThatThrownBy(() -> new ExpiredLease(null, "j1", 1, false)).isInstanceOf(NullPointerException.class)
                .hasMessage("fence");
        assertThatThrownBy(() -> new ExpiredLease(FENCE, null, 1, false)).isInstanceOf(NullPointerException.class)
                .hasMessage("jobId");
    }
}
