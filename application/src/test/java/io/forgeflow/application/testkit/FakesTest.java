package io.forgeflow.application.testkit;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class FakesTest {

    @Test
    void mutableClockMovesOnlyWhenToldAndItsZonedCopiesMoveWithIt() {
        MutableClock clock = MutableClock.at("2025-03-30T00:59:00Z");
        Clock berlin = clock.withZone(ZoneId.of("Europe/Berlin"));

        clock.advance(Duration.ofMinutes(2));

        assertThat(clock.instant()).isEqualTo(Instant.parse("2025-03-30T01:01:00Z"));
        assertThat(berlin.instant()).isEqualTo(clock.instant());
        assertThat(berlin.getZone()).isEqualTo(ZoneId.of("Europe/Berlin"));
    }

    @Test
    void workSignalCountsAndCoalescesSignals() throws InterruptedException {
        CountingWorkSignal signal = new CountingWorkSignal();

        assertThat(signal.await(Duration.ofMillis(1))).isFalse();
        signal.runsBecameDue();
        signal.runsBecameDue();

        assertThat(signal.count()).isEqualTo(2);
        assertThat(signal.await(Duration.ofSeconds(5))).isTrue();
        assertThat(signal.await(Duration.ofMillis(1))).isFalse();
    }

    @Test
    void workSignalWakesAWaiter() {
        CountingWorkSignal signal = new CountingWorkSignal();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            CompletableFuture<Boolean> woke = CompletableFuture.supplyAsync(() -> {
                try {
                    return signal.await(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    return false;
                }
            });
            while (!woke.isDone()) {
                signal.runsBecameDue();
                Thread.onSpinWait();
            }
            assertThat(woke.get()).isTrue();
        });
    }

    @Test
    void fakeLeaderElectionDoesWhatTheTestSays() {
        FakeLeaderElection election = FakeLeaderElection.standby();
        assertThat(election.campaign()).isFalse();
        election.setWinsCampaigns(true);
        assertThat(election.isLeader()).isFalse();
        assertThat(election.campaign()).isTrue();
        election.resign();
        assertThat(election.isLeader()).isFalse();
        assertThat(election.campaigns()).isEqualTo(2);
        assertThat(election.resignations()).isEqualTo(1);
    }

    @Test
    void fakeExecutorAnswersFromItsScriptThenByDefaultAndRejectsTheBadKey() {
        FakeExecutor executor = new FakeExecutor("fake")
                .thenReturn(ExecutionResult.failed("", "first fails"));
        ExecutionContext ctx = new ExecutionContext("r", "j", 1, Map.of(), Duration.ofSeconds(1), new Cancellation(), 100);

        assertThat(executor.execute(ctx).outcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(executor.execute(ctx).outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        assertThat(executor.executions()).hasSize(2);
        executor.validate(Map.of("command", "true"));
        assertThatThrownBy(() -> executor.validate(Map.of("bad", 1)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("payload.bad"));
    }

    @Test
    void untilCancelledStopsWhenTheCancellationFires() {
        Cancellation cancellation = new Cancellation();
        ExecutionContext ctx = new ExecutionContext("r", "j", 1, Map.of(), Duration.ofSeconds(30), cancellation, 100);
        cancellation.cancel("operator");

        ExecutionResult result = FakeExecutor.untilCancelled().apply(ctx);

        assertThat(result.outcome()).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(result.error()).isEqualTo("operator");
    }

    @Test
    void nodeRegistryListsNodesSeenWithinTheWindowWithTheirRunningCounts() {
        MutableClock clock = MutableClock.at("2025-01-01T00:00:00Z");
        InMemoryStore store = new InMemoryStore(clock);
        store.nodes().heartbeat(new NodeInfo("old", Set.of("worker"), "1", clock.instant(), false));
        clock.advance(Duration.ofSeconds(40));
        store.nodes().heartbeat(new NodeInfo("new", Set.of("api", "scheduler"), "1", clock.instant(), true));

        assertThat(store.nodes().list(30)).extracting(NodeStatus::lastSeenAt, n -> n.info().workerId(), NodeStatus::running)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(clock.instant(), "new", 0L));
        assertThat(store.nodes().list(60)).hasSize(2);
        store.nodes().remove("new");
        assertThat(store.nodes().list(60)).extracting(n -> n.info().workerId()).containsExactly("old");
    }
}
