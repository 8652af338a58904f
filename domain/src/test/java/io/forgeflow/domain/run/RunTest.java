package io.forgeflow.domain.run;

import io.forgeflow.domain.backoff.FailureDecision;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    final Run pending = Run.pending("r1", "j1", 3, 5, T0, "shell", Map.of("command", "true"), 60, T0);

    @Test
    void everyTransitionKeepsTheRunsRetryPolicy() {
        io.forgeflow.domain.backoff.RetryOverride own = new io.forgeflow.domain.backoff.RetryOverride(1, 2);
        Run p = pending.withRetry(own);
        Run running = p.claim("w1", T0, T0.plusSeconds(30));

        assertThat(pending.retry()).isNull();
        assertThat(running.retry()).isEqualTo(own);
        assertThat(running.fail(T0, null, "x", FailureDecision.retryAfter(Duration.ofSeconds(1))).retry()).isEqualTo(own);
        assertThat(running.fail(T0, null, "x", FailureDecision.deadLetter()).retry()).isEqualTo(own);
        assertThat(running.fail(T0, null, "x", FailureDecision.deadLetter()).requeue(T0, 2).retry()).isEqualTo(own);
        assertThat(running.succeed(T0, "ok").retry()).isEqualTo(own);
        assertThat(running.requestCancel().retry()).isEqualTo(own);
        assertThat(running.release(T0).retry()).isEqualTo(own);
        assertThat(p.cancel(T0, "r").retry()).isEqualTo(own);
    }

    @Nested
    class Snooze {
        @Test
        void aSnoozeGoesBackToPendingLaterWithoutSpendingAnAttemptAndIsCounted() {
            Run running = pending.withRetry(new io.forgeflow.domain.backoff.RetryOverride(1, 2))
                    .claim("w1", T0, T0.plusSeconds(30));
            Run snoozed = running.snooze(T0.plusSeconds(5), Duration.ofSeconds(40), "not ready");

            assertThat(snoozed.status()).isEqualTo(RunStatus.PENDING);
            assertThat(snoozed.scheduledFor()).isEqualTo(T0.plusSeconds(45));
            assertThat(snoozed.attempt()).isEqualTo(1);
            assertThat(snoozed.maxAttempts()).isEqualTo(4);
            assertThat(snoozed.snoozes()).isEqualTo(1);
            assertThat(snoozed.output()).isEqualTo("not ready");
            assertThat(snoozed.workerId()).isNull();
            assertThat(snoozed.leaseExpiresAt()).isNull();
            assertThat(snoozed.finishedAt()).isNull();
            assertThat(snoozed.retry()).isEqualTo(running.retry());
            Run twice = snoozed.claim("w2", T0.plusSeconds(45), T0.plusSeconds(75))
                    .snooze(T0.plusSeconds(46), Duration.ZERO, null);
            assertThat(twice.snoozes()).isEqualTo(2);
            assertThat(twice.maxAttempts() - twice.attempt()).isEqualTo(3);
            assertThat(twice.claim("w3", T0, T0.plusSeconds(1)).snoozes()).isEqualTo(2);
            assertThat(twice.withLabels(Map.of("a", "b")).snoozes()).isEqualTo(2);
        }

        @Test
        void onlyARunningRunSnoozes() {
            assertThatThrownBy(() -> pending.snooze(T0, Duration.ofSeconds(1), null))
                    .isInstanceOf(IllegalRunTransitionException.class).hasMessageContaining("pending");
            Run running = pending.claim("w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> running.snooze(T0, null, null)).isInstanceOf(NullPointerException.class);
        }

        @Test
        void snoozesAreNeverNegativeAndStartAtZero() {
            assertThat(pending.snoozes()).isZero();
            Run running = pending.claim("w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> new Run(running.id(), running.jobId(), running.status(), 1, 3, 5, T0, T0, null,
                    "w1", T0, null, null, "shell", Map.of(), 60, false, T0, null, null, Map.of(), -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snoozes must be >= 0, was -1");
            assertThat(new Run(running.id(), running.jobId(), running.status(), 1, 3, 5, T0, T0, null,
                    "w1", T0, null, null, "shell", Map.of(), 60, false, T0, null, null, Map.of(), 0).snoozes()).isZero();
        }
    }

    @Nested
    class Claim {
        @Test
        void claimingStartsANewAttemptHeldByTheWorkerUntilTheLease() {
            Run running = pending.claim("w1", T0.plusSeconds(1), T0.plusSeconds(31));
            assertThat(running.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(running.attempt()).isEqualTo(1);
            assertThat(running.workerId()).isEqualTo("w1");
            assertThat(running.leaseExpiresAt()).isEqualTo(T0.plusSeconds(31));
            assertThat(running.startedAt()).isEqualTo(T0.plusSeconds(1));
        }

        @Test
        void aRunningRunCannotBeClaimedAgain() {
            Run running = pending.claim("w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> running.claim("w2", T0, T0.plusSeconds(30)))
                    .isInstanceOf(IllegalRunTransitionException.class)
                    .hasMessageContaining("running").hasMessageContaining("cannot become running");
        }

        @Test
        void theRefusalNamesBothEndsOfTheForbiddenArrow() {
            Run running = pending.claim("w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> running.claim("w2", T0, T0.plusSeconds(30)))
                    .isInstanceOfSatisfying(IllegalRunTransitionException.class, e -> {
                        assertThat(e.from()).isEqualTo(RunStatus.RUNNING);
                        assertThat(e.to()).isEqualTo(RunStatus.RUNNING);
                    });
        }
    }

    @Nested
    class Finish {
        final Run running = pending.claim("w1", T0, T0.plusSeconds(30));

        @Test
        void successReleasesTheLeaseAndKeepsTheOutput() {
            Run done = running.succeed(T0.plusSeconds(2), "hello");
            assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(done.workerId()).isNull();
            assertThat(done.leaseExpiresAt()).isNull();
            assertThat(done.output()).isEqualTo("hello");
            assertThat(done.finishedAt()).isEqualTo(T0.plusSeconds(2));
        }

        @Test
        void aFailureWithARetryIsPendingAgainAfterTheDelay() {
            Run retry = running.fail(T0.plusSeconds(2), "out", "exit code 1", FailureDecision.retryAfter(Duration.ofSeconds(7)));
            assertThat(retry.status()).isEqualTo(RunStatus.PENDING);
            assertThat(retry.scheduledFor()).isEqualTo(T0.plusSeconds(9));
            assertThat(retry.attempt()).isEqualTo(1);
            assertThat(retry.error()).isEqualTo("exit code 1");
            assertThat(retry.workerId()).isNull();
        }

        @Test
        void aFailureWithoutARetryIsDead() {
            Run dead = running.fail(T0.plusSeconds(2), "out", "boom", FailureDecision.deadLetter());
            assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
            assertThat(dead.finishedAt()).isEqualTo(T0.plusSeconds(2));
        }

        @Test
        void aPendingRunCannotSucceedOrFail() {
            assertThatThrownBy(() -> pending.succeed(T0, "")).isInstanceOf(IllegalRunTransitionException.class);
            assertThatThrownBy(() -> pending.fail(T0, "", "", FailureDecision.deadLetter()))
                    .isInstanceOf(IllegalRunTransitionException.class);
            assertThatThrownBy(() -> pending.fail(T0, "", "", FailureDecision.retryAfter(Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void theLastAllowedAttemptLeavesNoneLeft() {
            assertThat(pending.hasAttemptsLeft()).isTrue();
            Run once = Run.pending("r2", "j1", 1, 5, T0, "shell", Map.of(), 60, T0);
            assertThat(once.hasAttemptsLeft()).isTrue();
            assertThat(once.claim("w1", T0, T0.plusSeconds(30)).hasAttemptsLeft()).isFalse();
        }
    }

    @Nested
    class CancelAndRequeue {
        @Test
        void aPendingRunIsCancelledAtOnce() {
            Run cancelled = pending.cancel(T0, "operator");
            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(cancelled.error()).isEqualTo("operator");
        }

        @Test
        void aRunningRunIsAskedToStopAndStaysRunning() {
            Run asked = pending.claim("w1", T0, T0.plusSeconds(30)).requestCancel();
            assertThat(asked.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(asked.cancelRequested()).isTrue();
            assertThatThrownBy(pending::requestCancel).isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void aSucceededRunCannotBeCancelledOrRequeued() {
            Run done = pending.claim("w1", T0, T0.plusSeconds(30)).succeed(T0, "");
            assertThatThrownBy(() -> done.cancel(T0, "x")).isInstanceOf(IllegalRunTransitionException.class);
            assertThatThrownBy(() -> done.requeue(T0, 3)).isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void requeueGivesAFreshBudgetAndKeepsCountingAttempts() {
            Run dead = pending.claim("w1", T0, T0.plusSeconds(30)).fail(T0, "", "x", FailureDecision.deadLetter());
            Run again = dead.requeue(T0.plusSeconds(60), 3);
            assertThat(again.status()).isEqualTo(RunStatus.PENDING);
            assertThat(again.attempt()).isEqualTo(1);
            assertThat(again.maxAttempts()).isEqualTo(4);
            assertThat(again.hasAttemptsLeft()).isTrue();
            assertThat(again.scheduledFor()).isEqualTo(T0.plusSeconds(60));
            assertThat(dead.requeue(T0, 1).maxAttempts()).isEqualTo(2);
            assertThatThrownBy(() -> dead.requeue(T0, 0)).hasMessageContaining(">= 1");
            assertThatThrownBy(() -> pending.requeue(T0, 3)).isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void aReleasedRunDoesNotLoseAnAttempt() {
            Run running = pending.claim("w1", T0, T0.plusSeconds(30));
            Run released = running.release(T0.plusSeconds(5));
            assertThat(released.status()).isEqualTo(RunStatus.PENDING);
            assertThat(released.maxAttempts() - released.attempt()).isEqualTo(pending.maxAttempts() - pending.attempt());
            assertThatThrownBy(() -> pending.release(T0)).isInstanceOf(IllegalRunTransitionException.class);
        }
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
