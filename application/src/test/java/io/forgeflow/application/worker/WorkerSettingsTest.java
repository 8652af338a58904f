package io.forgeflow.application.worker;

import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.queue.QueueSelection;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

    @Test
    void withoutLanesAWorkerTakesEveryQueueInAllItsSlots() {
        WorkerSettings settings = settings("w", 16, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1);

        assertThat(settings.lanes()).containsExactly(new QueueLane(QueueSelection.ALL, 16));
    }

    @Test
    void withLanesTheConcurrencyIsTheSumOfTheirSlots() {
        WorkerSettings settings = settings("w", 16, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1)
                .withLanes(QueueLane.parse("reports=2,*", 16));

        assertThat(settings.concurrency()).isEqualTo(18);
        assertThat(settings.lanes()).hasSize(2);
        assertThat(settings.workerId()).isEqualTo("w");
        assertThat(settings.retryPolicy()).isEqualTo(RetryPolicy.DEFAULT);
    }

    @Test
    void theLanesSlotsMustAddUpToTheConcurrency() {
        List<QueueLane> lanes = QueueLane.parse("reports=2,webhooks=3", 16);

        assertThatThrownBy(() -> new WorkerSettings("w", 4, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1,
                RetryPolicy.DEFAULT, lanes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the queue lanes' slots (5) must add up to the concurrency (4)");
        assertThatCode(() -> new WorkerSettings("w", 5, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1,
                RetryPolicy.DEFAULT, lanes)).doesNotThrowAnyException();
    }

    @Test
    void aWorkerNeedsALane() {
        assertThatThrownBy(() -> new WorkerSettings("w", 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1,
                RetryPolicy.DEFAULT, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one queue lane");
        assertThatThrownBy(() -> new WorkerSettings("w", 1, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1,
                RetryPolicy.DEFAULT, null))
                .isInstanceOf(NullPointerException.class).hasMessage("lanes");
    }

    @Test
    void lanesAddingUpToMoreThanAThousandSlotsAreRefused() {
        WorkerSettings base = settings("w", 16, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1);

        assertThatThrownBy(() -> base.withLanes(QueueLane.parse("a=600,b=600", 16)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("concurrency must be between 1 and 1000, was 1200");
    }

    @Test
    void theLanesAreCopied() {
        List<QueueLane> lanes = new ArrayList<>(QueueLane.parse("a=1", 16));
        WorkerSettings settings = settings("w", 16, SECOND, LEASE, HEARTBEAT, Duration.ZERO, 1).withLanes(lanes);
        lanes.add(QueueLane.all(3).get(0));

        assertThat(settings.lanes()).hasSize(1);
        assertThatThrownBy(() -> settings.lanes().add(QueueLane.all(1).get(0)))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
