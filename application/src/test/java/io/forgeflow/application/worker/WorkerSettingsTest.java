package io.forgeflow.application.worker;

import io.forgeflow.domain.backoff.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkerSettingsTest {
    static final Duration SECOND = Duration.ofSeconds(1);
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration HEARTBEAT = Duration.ofSeconds(10);

    static WorkerSettings settings(String workerId, int concurrency, Duration poll, Duration lease, Duration heartbeat,
                                   Duration drainGrace, int maxOutputBytes) {
        return new WorkerSettings(workerId, concurrency, poll, lease, heartbeat, drainGrace, maxOutputBytes,
                RetryPolicy.DEFAULT);
    }

    @Test
    void theDefaultsOfTheConfigurationAreAccepted() {
        WorkerSettings settings = settings("node-1", 16, SECOND, LEASE, HEARTBEAT, Duration.ofSeconds(60), 65_536);

        assertThat(settings.concurrency()).isEqualTo(16);
        assertThat(settings.retryPolicy()).isEqualTo(RetryPolicy.DEFAULT);
    }

    @Test
    void aHeartbeatOfExactlyHalfTheLeaseIsAccepted() {
        assertThatCode(() -> settings("w", 1, SECOND, LEASE, Duration.ofSeconds(15), Duration.ZERO, 1))
                .doesNotThrowAnyException();
    }

    @Test
    void aHeartbeatLongerThanHalfTheLeaseIsRefused() {
        assertThatThrownBy(() -> settings("w", 1, SECOND, LEASE, Duration.ofMillis(15_001), Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("half the lease");
        assertThatThrownBy(() -> settings("w", 1, SECOND, LEASE, Duration.ofSeconds(30), Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrencyMustBeBetweenOneAndAThousand() {
        assertThatThrownBy(() -> settings("w", 0, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("concurrency");
        assertThatThrownBy(() -> settings("w", 1001, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("concurrency");
        assertThatCode(() -> settings("w", 1000, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1)).doesNotThrowAnyException();
    }

    @Test
    void theWorkerIdMustBeOneToTwoHundredCharacters() {
        assertThatThrownBy(() -> settings(" ", 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("worker id");
        assertThatThrownBy(() -> settings("w".repeat(201), 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> settings(null, 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(NullPointerException.class);
        assertThatCode(() -> settings("w".repeat(200), 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .doesNotThrowAnyException();
    }

    @Test
    void intervalsAndTheLeaseMustBePositive() {
        assertThatThrownBy(() -> settings("w", 1, Duration.ZERO, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollInterval");
        assertThatThrownBy(() -> settings("w", 1, SECOND, Duration.ofSeconds(-30), HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> settings("w", 1, SECOND, LEASE, Duration.ZERO, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heartbeatInterval");
        assertThatThrownBy(() -> settings("w", 1, null, LEASE, HEARTBEAT, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDrainGraceMayBeZeroButNotNegativeOrMissing() {
        assertThatThrownBy(() -> settings("w", 1, SECOND, LEASE, HEARTBEAT, Duration.ofMillis(-1), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drainGrace");
        assertThatThrownBy(() -> settings("w", 1, SECOND, LEASE, HEARTBEAT, null, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void atLeastOneByteOfOutputIsKept() {
        assertThatThrownBy(() -> settings("w", 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxOutputBytes");
    }

    @Test
    void aRetryPolicyIsRequired() {
        assertThatThrownBy(() -> new WorkerSettings("w", 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1, null))
                .isInstanceOf(NullPointerException.class);
    }
}
