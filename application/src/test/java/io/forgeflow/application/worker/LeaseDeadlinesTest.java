package io.forgeflow.application.worker;

import io.forgeflow.domain.port.RunFence;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Until when each attempt is trusted, on a test ticker: twenty seconds from the start of its last confirmation. */
class LeaseDeadlinesTest {
    static final long TRUSTED = Duration.ofSeconds(20).toNanos();
    final TestTicker ticker = new TestTicker();
    final LeaseDeadlines deadlines = new LeaseDeadlines(ticker, TRUSTED);
    final RunFence fence = new RunFence("r1", "w1", 1);

    /** Registered, and its deadline not passed. */
    boolean trusted(RunFence f) {
        return deadlines.fences().contains(f) && !deadlines.expired().contains(f);
    }

    @Test
    void aClaimIsTrustedFromWhenItWasAskedAndAHeartbeatFromWhenItStarted() {
        long asked = ticker.nanos();
        ticker.advance(Duration.ofSeconds(1));
        deadlines.claimed(fence, asked);
        ticker.advance(Duration.ofSeconds(19).minusNanos(1));
        assertThat(trusted(fence)).isTrue();
        long beatStarted = ticker.nanos();
        ticker.advance(Duration.ofNanos(1));
        assertThat(trusted(fence)).isFalse();
        assertThat(deadlines.expired()).containsExactly(fence);

        deadlines.confirmed(fence, beatStarted);

        assertThat(trusted(fence)).isTrue();
        assertThat(deadlines.expired()).isEmpty();
    }

    @Test
    void aConfirmationOlderThanTheDeadlineNeverMovesItBack() {
        long asked = ticker.nanos();
        deadlines.claimed(fence, asked);

        deadlines.confirmed(fence, asked - Duration.ofSeconds(5).toNanos()); // a heartbeat that started earlier
        ticker.advance(Duration.ofSeconds(19));

        assertThat(trusted(fence)).isTrue();
    }

    @Test
    void anEndedOrUnknownAttemptIsNeitherTrustedNorListed() {
        deadlines.claimed(fence, ticker.nanos());
        assertThat(deadlines.fences()).containsExactly(fence);

        deadlines.ended(fence);
        deadlines.confirmed(fence, ticker.nanos());

        assertThat(trusted(fence)).isFalse();
        assertThat(deadlines.fences()).isEmpty();
        ticker.advance(Duration.ofMinutes(1));
        assertThat(deadlines.expired()).isEmpty();
    }
}
