package io.forgeflow.domain.port;

import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PortValuesTest {
    static final RunFence FENCE = new RunFence("r1", "w1", 1);

    @Nested
    class Acknowledgements {
        @Test
        void aRetryCarriesItsDelayAndOtherEndingsHaveNone() {
            Acknowledgement retry = new Acknowledgement(FENCE, AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ofSeconds(7), "out", "exit code 1");
            assertThat(retry.retryDelay()).isEqualTo(Duration.ofSeconds(7));
            Acknowledgement done = new Acknowledgement(FENCE, AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, null, "out", null);
            assertThat(done.retryDelay()).isZero();
        }

        @ParameterizedTest
        @EnumSource(value = RunStatus.class, names = {"SUCCEEDED", "DEAD", "CANCELLED"})
        void onlyARetryHasADelay(RunStatus next) {
            assertThat(new Acknowledgement(FENCE, AttemptOutcome.FAILED, next, Duration.ZERO, "", "x").next()).isEqualTo(next);
            assertThatThrownBy(() -> new Acknowledgement(FENCE, AttemptOutcome.FAILED, next, Duration.ofMillis(1), "", "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only a retry");
        }

        @Test
        void aRetryAfterBelongsToARetryAndIsAtMostItsDelay() {
            Acknowledgement retry = new Acknowledgement(FENCE, AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ofSeconds(7), "", "HTTP 503", Duration.ofSeconds(7));
            assertThat(retry.retryAfter()).isEqualTo(Duration.ofSeconds(7));
            assertThat(new Acknowledgement(FENCE, AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ofSeconds(7), "",
                    "x").retryAfter()).isNull();
            assertThatThrownBy(() -> new Acknowledgement(FENCE, AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ofSeconds(7), "", "x", Duration.ofSeconds(8))).hasMessageContaining("at most its delay");
            assertThatThrownBy(() -> new Acknowledgement(FENCE, AttemptOutcome.FAILED, RunStatus.DEAD,
                    Duration.ZERO, "", "x", Duration.ZERO)).hasMessageContaining("retry-after");
        }

        @Test
        void aRunningRunCannotBeAcknowledgedIntoRunningAgain() {
            assertThatThrownBy(() -> new Acknowledgement(FENCE, AttemptOutcome.SUCCEEDED, RunStatus.RUNNING, null, "", null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot become running");
        }
    }

    @Nested
    class Tenants {
        @Test
        void aTenantsLoadIsItsPendingAndRunningRuns() {
            assertThat(new QueueStats.TenantLoad(3, 4).live()).isEqualTo(7);
            QueueStats.Snapshot none = new QueueStats.Snapshot(Map.of(), Duration.ZERO, 0, null);
            assertThat(none.tenants()).isEmpty();
            assertThat(new QueueStats.Snapshot(Map.of(), Duration.ZERO, 2).tenants()).isEmpty();
            Map<String, QueueStats.TenantLoad> loads = new java.util.HashMap<>(Map.of("acme",
                    new QueueStats.TenantLoad(1, 0)));
            QueueStats.Snapshot some = new QueueStats.Snapshot(Map.of(), Duration.ZERO, 0, loads);
            loads.clear();
            assertThat(some.tenants()).as("a copy").containsOnlyKeys("acme");
        }

        @Test
        void aBatchWithoutATenantIsTheDefaultTenants() {
            Workflows.BatchProgress batch = new Workflows.BatchProgress("b", null, null, "h", Instant.EPOCH, null, 1,
                    0, 1, 0, 0, 0, 0, null);
            assertThat(batch.tenant()).isEqualTo("default");
            assertThat(new Workflows.BatchProgress("b", null, null, "h", Instant.EPOCH, null, 1, 0, 1, 0, 0, 0, 0, null,
                    "acme").tenant()).isEqualTo("acme");
        }

        @Test
        void aDirectoryAnswersSeveralIdsOneByOneUnlessItKnowsBetter() {
            Map<String, String> owners = Map.of("j1", "acme", "j2", "beta");
            TenantDirectory directory = (kind, id) -> kind == TenantDirectory.Kind.JOB
                    ? java.util.Optional.ofNullable(owners.get(id)) : java.util.Optional.empty();

            assertThat(directory.tenantsOf(TenantDirectory.Kind.JOB, List.of("j1", "j2", "gone")))
                    .isEqualTo(Map.of("j1", "acme", "j2", "beta"));
            assertThat(directory.tenantsOf(TenantDirectory.Kind.RUN, List.of("j1"))).isEmpty();
        }
    }

    @Test
    void aFenceNamesAStartedAttempt() {
        assertThat(new RunFence("r1", "w1", 1).attempt()).isEqualTo(1);
        assertThatThrownBy(() -> new RunFence("r1", "w1", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attempt must be >= 1, was 0");
    }

    @Nested
    class QueueSnapshots {
        @Test
        void everyStatusHasADepthZeroWhenMissing() {
            QueueStats.Snapshot snapshot = new QueueStats.Snapshot(Map.of(RunStatus.PENDING, 4L), Duration.ofSeconds(3));
            assertThat(snapshot.depth()).containsOnlyKeys(RunStatus.values())
                    .containsEntry(RunStatus.PENDING, 4L).containsEntry(RunStatus.DEAD, 0L);
            assertThat(snapshot.lag()).isEqualTo(Duration.ofSeconds(3));
        }

        @Test
        void noCountsMeanZeroEverywhere() {
            QueueStats.Snapshot snapshot = new QueueStats.Snapshot(null, Duration.ZERO);
            assertThat(snapshot.depth()).hasSize(RunStatus.values().length).allSatisfy((s, n) -> assertThat(n).isZero());
        }

        @Test
        void aNegativeLagFromClockSkewIsZero() {
            assertThat(new QueueStats.Snapshot(Map.of(), Duration.ofMillis(-5)).lag()).isZero();
        }
    }

    @Test
    void theSilentEventStreamHearsNothingAndClosesQuietly() throws Exception {
        List<RunChange> heard = new ArrayList<>();
        AutoCloseable subscription = RunEvents.NONE.subscribe(heard::addAll);
        RunEvents.NONE.publish(List.of(new RunChange("r1", "j1", RunStatus.PENDING, 0, null, Instant.EPOCH)));
        assertThat(subscription).isNotNull();
        subscription.close();
        assertThat(heard).isEmpty();
    }

    @Test
    void aRegistryWithoutGoneNodesListsTheLiveOnesAndForgetsNothing() {
        NodeRegistry.NodeInfo info = new NodeRegistry.NodeInfo("w1", Set.of("worker"), "1.0", Instant.EPOCH, false);
        NodeRegistry.NodeStatus live = new NodeRegistry.NodeStatus(info, Instant.EPOCH, 2);
        List<Long> asked = new ArrayList<>();
        NodeRegistry registry = new NodeRegistry() {
            @Override
            public void heartbeat(NodeInfo node) {
            }

            @Override
            public void remove(String workerId) {
            }

            @Override
            public List<NodeStatus> list(long liveWindowSeconds) {
                asked.add(liveWindowSeconds);
                return List.of(live);
            }
        };
        assertThat(registry.list(30, 3600)).containsExactly(live);
        assertThat(asked).containsExactly(30L);
        assertThat(registry.forgetUnseen(60)).isZero();
        assertThat(live.live()).isTrue();
    }

    @Nested
    class DefaultMethods {
        @ParameterizedTest
        @EnumSource(JobRepository.TickOutcome.class)
        void fireTickIsWhetherTheJobAdvanced(JobRepository.TickOutcome outcome) {
            JobRepository jobs = implementing(JobRepository.class, (name, args) -> "fire".equals(name) ? outcome : null);

            assertThat(jobs.fireTick("j1", Instant.EPOCH, Instant.EPOCH.plusSeconds(60), null))
                    .isEqualTo(outcome != JobRepository.TickOutcome.NOT_ADVANCED);
        }

        @Test
        void aClaimWithoutQueuesClaimsFromEveryQueueAndReturnsWhatTheQueueClaimed() {
            List<io.forgeflow.domain.run.Run> claimed = java.util.Arrays.asList((io.forgeflow.domain.run.Run) null);
            List<Object[]> calls = new ArrayList<>();
            RunQueue queue = implementing(RunQueue.class, (name, args) -> {
                calls.add(args);
                return claimed;
            });

            assertThat(queue.claim("w1", Set.of("noop"), 3, Duration.ofSeconds(30))).isSameAs(claimed);
            assertThat(calls).hasSize(1);
            assertThat(calls.get(0)).containsExactly("w1", Set.of("noop"),
                    io.forgeflow.domain.queue.QueueSelection.ALL, 3, Duration.ofSeconds(30));
        }

        @Test
        void aQueueThatCannotStartPastAHintClaimsFromTheStart() {
            List<io.forgeflow.domain.run.Run> claimed = java.util.Arrays.asList((io.forgeflow.domain.run.Run) null);
            List<Object[]> calls = new ArrayList<>();
            RunQueue queue = implementing(RunQueue.class, (name, args) -> {
                calls.add(args);
                return claimed;
            });

            assertThat(queue.claim("w1", Set.of("noop"), io.forgeflow.domain.queue.QueueSelection.ALL, 3,
                    Duration.ofSeconds(30), new ClaimHint(5, Instant.EPOCH, "r1"))).isSameAs(claimed);
            assertThat(calls).hasSize(1);
            assertThat(calls.get(0)).containsExactly("w1", Set.of("noop"),
                    io.forgeflow.domain.queue.QueueSelection.ALL, 3, Duration.ofSeconds(30));
        }

        @Test
        void aRetentionThatDoesNotKeepStatisticsRefreshesNone() {
            Retention retention = implementing(Retention.class, (name, args) -> 0);

            assertThat(retention.refreshStatistics()).isEmpty();
        }

        @Test
        void aRetentionWithoutHistoryMovesAndDropsNothing() {
            Retention retention = implementing(Retention.class, (name, args) -> 0);

            assertThat(retention.moveToHistory(Duration.ofHours(1), Duration.ofDays(14), 1_000)).isZero();
            assertThat(retention.dropHistory(Duration.ofDays(14))).isEmpty();
        }

        /** The port, with its abstract methods answered by {@code answer} and its default methods as written. */
        @SuppressWarnings("unchecked")
        private <T> T implementing(Class<T> port, java.util.function.BiFunction<String, Object[], Object> answer) {
            return (T) java.lang.reflect.Proxy.newProxyInstance(port.getClassLoader(), new Class<?>[] {port},
                    (proxy, method, args) -> method.isDefault()
                            ? java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args)
                            : answer.apply(method.getName(), args));
        }
    }
}
