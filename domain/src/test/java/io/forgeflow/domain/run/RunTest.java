package io.forgeflow.domain.run;

import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.trace.RunTrace;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The record's own behaviour. Its transitions are SQL in adapters-postgres; the fakes' are the application testkit's
 * RunTransitions, tested there (issue 40).
 */
class RunTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    final Run pending = Run.pending("r1", "j1", 3, 5, T0, "shell", Map.of("command", "true"), 60, T0);
    /** A run in its second attempt, held by w1, asked to stop, snoozed twice, with everything set. */
    final Run full = new Run("r2", "j1", RunStatus.RUNNING, 2, 4, 7, T0, T0.plusSeconds(1), null, "w1",
            T0.plusSeconds(31), "out", "err", "shell", Map.of("command", "true"), 60, true, T0,
            new RunTrace(null, null, "q"), new RetryOverride(1, 2), Map.of("team", "pay"), 2);

    @Test
    void aFreshPendingRunHasNotStartedAnAttempt() {
        assertThat(pending.status()).isEqualTo(RunStatus.PENDING);
        assertThat(pending.attempt()).isZero();
        assertThat(pending.maxAttempts()).isEqualTo(3);
        assertThat(pending.priority()).isEqualTo(5);
        assertThat(pending.scheduledFor()).isEqualTo(T0);
        assertThat(pending.createdAt()).isEqualTo(T0);
        assertThat(pending.workerId()).isNull();
        assertThat(pending.leaseExpiresAt()).isNull();
        assertThat(pending.cancelRequested()).isFalse();
        assertThat(pending.trace()).isNull();
        assertThat(pending.retry()).isNull();
        assertThat(pending.labels()).isEmpty();
        assertThat(pending.snoozes()).isZero();
    }

    @Test
    void theWithersChangeTheirFieldAndKeepEveryOther() {
        RetryOverride other = new RetryOverride(3, 4);
        RunTrace traced = new RunTrace(null, null, "other");
        Map<String, String> labels = Map.of("a", "b");

        assertThat(full.withRetry(other)).isEqualTo(new Run("r2", "j1", RunStatus.RUNNING, 2, 4, 7, T0,
                T0.plusSeconds(1), null, "w1", T0.plusSeconds(31), "out", "err", "shell", Map.of("command", "true"), 60,
                true, T0, full.trace(), other, full.labels(), 2));
        assertThat(full.withTrace(traced)).isEqualTo(new Run("r2", "j1", RunStatus.RUNNING, 2, 4, 7, T0,
                T0.plusSeconds(1), null, "w1", T0.plusSeconds(31), "out", "err", "shell", Map.of("command", "true"), 60,
                true, T0, traced, full.retry(), full.labels(), 2));
        assertThat(full.withLabels(labels)).isEqualTo(new Run("r2", "j1", RunStatus.RUNNING, 2, 4, 7, T0,
                T0.plusSeconds(1), null, "w1", T0.plusSeconds(31), "out", "err", "shell", Map.of("command", "true"), 60,
                true, T0, full.trace(), full.retry(), labels, 2));
        assertThat(full.withRetry(null).retry()).isNull();
        assertThat(full.withLabels(null).labels()).isEmpty();
    }

    @Test
    void onlyAFreshPendingRunWaitsForParentsAndItKeepsEverythingElse() {
        Run fresh = pending.withRetry(new RetryOverride(1, 2)).withLabels(Map.of("team", "pay"))
                .withTrace(new RunTrace(null, null, "q"));
        Run waiting = fresh.waitingForParents();
        assertThat(waiting).isEqualTo(new Run("r1", "j1", RunStatus.WAITING, 0, 3, 5, T0, null, null, null, null,
                null, null, "shell", Map.of("command", "true"), 60, false, T0, fresh.trace(), fresh.retry(),
                fresh.labels(), 0));
        assertThatThrownBy(full::waitingForParents)
                .isInstanceOfSatisfying(IllegalRunTransitionException.class, e -> {
                    assertThat(e.from()).isEqualTo(RunStatus.RUNNING);
                    assertThat(e.to()).isEqualTo(RunStatus.WAITING);
                    assertThat(e).hasMessage("run r2 is running and cannot become waiting");
                });
    }

    @Test
    void snoozesAreNeverNegativeAndStartAtZero() {
        assertThat(pending.snoozes()).isZero();
        assertThatThrownBy(() -> new Run("r1", "j1", RunStatus.RUNNING, 1, 3, 5, T0, T0, null,
                "w1", T0, null, null, "shell", Map.of(), 60, false, T0, null, null, Map.of(), -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snoozes must be >= 0, was -1");
        assertThat(new Run("r1", "j1", RunStatus.RUNNING, 1, 3, 5, T0, T0, null,
                "w1", T0, null, null, "shell", Map.of(), 60, false, T0, null, null, Map.of(), 0).snoozes()).isZero();
    }

    @Test
    void theLastAllowedAttemptLeavesNoneLeft() {
        assertThat(pending.hasAttemptsLeft()).isTrue();
        assertThat(full.hasAttemptsLeft()).isTrue();
        Run last = new Run("r2", "j1", RunStatus.RUNNING, 4, 4, 7, T0, T0, null, "w1", T0.plusSeconds(30), null, null,
                "shell", Map.of(), 60, false, T0, null, null, Map.of(), 0);
        assertThat(last.hasAttemptsLeft()).isFalse();
    }

    @Test
    void thePayloadAndTheTimeoutAreKept() {
        assertThat(pending.payload()).isEqualTo(Map.of("command", "true"));
        assertThat(pending.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(Run.pending("r2", "j1", 1, 5, T0, "noop", null, 1, T0).payload()).isEmpty();
    }

    @Test
    void theRunningInvariantHoldsInEveryConstructedRun() {
        assertThatThrownBy(() -> new Run("r", "j", RunStatus.RUNNING, 1, 3, 5, T0, T0, null, null, null, null, null,
                "shell", Map.of(), 1, false, T0)).hasMessageContaining("running exactly when");
        assertThatThrownBy(() -> new Run("r", "j", RunStatus.PENDING, 0, 3, 5, T0, null, null, "w", T0, null, null,
                "shell", Map.of(), 1, false, T0)).hasMessageContaining("running exactly when");
        assertThatThrownBy(() -> new Run("r", "j", RunStatus.PENDING, -1, 3, 5, T0, null, null, null, null, null, null,
                "shell", Map.of(), 1, false, T0)).hasMessageContaining("attempt");
        assertThatThrownBy(() -> new Run("r", "j", RunStatus.PENDING, 0, 0, 5, T0, null, null, null, null, null, null,
                "shell", Map.of(), 1, false, T0)).hasMessageContaining("maxAttempts");
    }
}
