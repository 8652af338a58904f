package io.forgeflow.application.testkit;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.run.IllegalRunTransitionException;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.forgeflow.application.testkit.RunTransitions.cancel;
import static io.forgeflow.application.testkit.RunTransitions.claim;
import static io.forgeflow.application.testkit.RunTransitions.fail;
import static io.forgeflow.application.testkit.RunTransitions.release;
import static io.forgeflow.application.testkit.RunTransitions.requestCancel;
import static io.forgeflow.application.testkit.RunTransitions.requeue;
import static io.forgeflow.application.testkit.RunTransitions.snooze;
import static io.forgeflow.application.testkit.RunTransitions.succeed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fakes' transitions (moved here from the domain's RunTest with the methods, issue 40). */
class RunTransitionsTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    final Run pending = Run.pending("r1", "j1", 3, 5, T0, "shell", Map.of("command", "true"), 60, T0);

    @Test
    void everyTransitionKeepsTheRunsRetryPolicy() {
        RetryOverride own = new RetryOverride(1, 2);
        Run p = pending.withRetry(own);
        Run running = claim(p, "w1", T0, T0.plusSeconds(30));

        assertThat(pending.retry()).isNull();
        assertThat(running.retry()).isEqualTo(own);
        assertThat(fail(running, T0, null, "x", FailureDecision.retryAfter(Duration.ofSeconds(1))).retry())
                .isEqualTo(own);
        assertThat(fail(running, T0, null, "x", FailureDecision.deadLetter()).retry()).isEqualTo(own);
        assertThat(requeue(fail(running, T0, null, "x", FailureDecision.deadLetter()), T0, 2).retry()).isEqualTo(own);
        assertThat(succeed(running, T0, "ok").retry()).isEqualTo(own);
        assertThat(requestCancel(running).retry()).isEqualTo(own);
        assertThat(release(running, T0).retry()).isEqualTo(own);
        assertThat(cancel(p, T0, "r").retry()).isEqualTo(own);
    }

    @Test
    void everyAllowedMoveIsInRunStatussTableAndEveryRefusalNamesIt() {
        Run waiting = pending.waitingForParents();
        assertThat(cancel(waiting, T0, "parent died").status()).isEqualTo(RunStatus.CANCELLED);
        assertThatThrownBy(() -> claim(waiting, "w1", T0, T0.plusSeconds(30)))
                .isInstanceOfSatisfying(IllegalRunTransitionException.class, e -> {
                    assertThat(e.from()).isEqualTo(RunStatus.WAITING);
                    assertThat(e.to()).isEqualTo(RunStatus.RUNNING);
                    assertThat(RunStatus.WAITING.canMoveTo(RunStatus.RUNNING)).isFalse();
                });
        Run cancelled = cancel(pending, T0, "operator");
        assertThat(RunStatus.CANCELLED.canMoveTo(RunStatus.PENDING)).isTrue();
        assertThat(requeue(cancelled, T0.plusSeconds(1), 1).status()).isEqualTo(RunStatus.PENDING);
        Run running = claim(pending, "w1", T0, T0.plusSeconds(30));
        assertThatThrownBy(() -> requeue(running, T0, 1))
                .isInstanceOfSatisfying(IllegalRunTransitionException.class, e -> {
                    assertThat(e.from()).isEqualTo(RunStatus.RUNNING);
                    assertThat(e.to()).isEqualTo(RunStatus.PENDING);
                });
        Run done = succeed(running, T0, "");
        assertThatThrownBy(() -> requestCancel(done))
                .isInstanceOfSatisfying(IllegalRunTransitionException.class, e -> {
                    assertThat(e.from()).isEqualTo(RunStatus.SUCCEEDED);
                    assertThat(e.to()).isEqualTo(RunStatus.CANCELLED);
                });
    }

    @Nested
    class Snooze {
        @Test
        void aSnoozeGoesBackToPendingLaterWithoutSpendingAnAttemptAndIsCounted() {
            Run running = claim(pending.withRetry(new RetryOverride(1, 2)), "w1", T0, T0.plusSeconds(30));
            Run snoozed = snooze(running, T0.plusSeconds(5), Duration.ofSeconds(40), "not ready");

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
            Run twice = snooze(claim(snoozed, "w2", T0.plusSeconds(45), T0.plusSeconds(75)),
                    T0.plusSeconds(46), Duration.ZERO, null);
            assertThat(twice.snoozes()).isEqualTo(2);
            assertThat(twice.maxAttempts() - twice.attempt()).isEqualTo(3);
            assertThat(claim(twice, "w3", T0, T0.plusSeconds(1)).snoozes()).isEqualTo(2);
            assertThat(twice.withLabels(Map.of("a", "b")).snoozes()).isEqualTo(2);
        }

        @Test
        void onlyARunningRunSnoozes() {
            assertThatThrownBy(() -> snooze(pending, T0, Duration.ofSeconds(1), null))
                    .isInstanceOf(IllegalRunTransitionException.class).hasMessageContaining("pending");
            Run running = claim(pending, "w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> snooze(running, T0, null, null)).isInstanceOf(NullPointerException.class);
        }
    }

    @Nested
    class Claim {
        @Test
        void claimingStartsANewAttemptHeldByTheWorkerUntilTheLease() {
            Run running = claim(pending, "w1", T0.plusSeconds(1), T0.plusSeconds(31));
            assertThat(running.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(running.attempt()).isEqualTo(1);
            assertThat(running.workerId()).isEqualTo("w1");
            assertThat(running.leaseExpiresAt()).isEqualTo(T0.plusSeconds(31));
            assertThat(running.startedAt()).isEqualTo(T0.plusSeconds(1));
        }

        @Test
        void aRunningRunCannotBeClaimedAgain() {
            Run running = claim(pending, "w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> claim(running, "w2", T0, T0.plusSeconds(30)))
                    .isInstanceOf(IllegalRunTransitionException.class)
                    .hasMessageContaining("running").hasMessageContaining("cannot become running");
        }

        @Test
        void theRefusalNamesBothEndsOfTheForbiddenArrow() {
            Run running = claim(pending, "w1", T0, T0.plusSeconds(30));
            assertThatThrownBy(() -> claim(running, "w2", T0, T0.plusSeconds(30)))
                    .isInstanceOfSatisfying(IllegalRunTransitionException.class, e -> {
                        assertThat(e.from()).isEqualTo(RunStatus.RUNNING);
                        assertThat(e.to()).isEqualTo(RunStatus.RUNNING);
                    });
        }

        @Test
        void aClaimNeedsAWorker() {
            assertThatThrownBy(() -> claim(pending, null, T0, T0.plusSeconds(30)))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("worker");
        }
    }

    @Nested
    class Finish {
        final Run running = claim(pending, "w1", T0, T0.plusSeconds(30));

        @Test
        void successReleasesTheLeaseAndKeepsTheOutput() {
            Run done = succeed(running, T0.plusSeconds(2), "hello");
            assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(done.workerId()).isNull();
            assertThat(done.leaseExpiresAt()).isNull();
            assertThat(done.output()).isEqualTo("hello");
            assertThat(done.finishedAt()).isEqualTo(T0.plusSeconds(2));
        }

        @Test
        void aFailureWithARetryIsPendingAgainAfterTheDelay() {
            Run retry = fail(running, T0.plusSeconds(2), "out", "exit code 1",
                    FailureDecision.retryAfter(Duration.ofSeconds(7)));
            assertThat(retry.status()).isEqualTo(RunStatus.PENDING);
            assertThat(retry.scheduledFor()).isEqualTo(T0.plusSeconds(9));
            assertThat(retry.attempt()).isEqualTo(1);
            assertThat(retry.error()).isEqualTo("exit code 1");
            assertThat(retry.workerId()).isNull();
        }

        @Test
        void aFailureWithoutARetryIsDead() {
            Run dead = fail(running, T0.plusSeconds(2), "out", "boom", FailureDecision.deadLetter());
            assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
            assertThat(dead.finishedAt()).isEqualTo(T0.plusSeconds(2));
        }

        @Test
        void aPendingRunCannotSucceedOrFail() {
            assertThatThrownBy(() -> succeed(pending, T0, "")).isInstanceOf(IllegalRunTransitionException.class);
            assertThatThrownBy(() -> fail(pending, T0, "", "", FailureDecision.deadLetter()))
                    .isInstanceOf(IllegalRunTransitionException.class);
            assertThatThrownBy(() -> fail(pending, T0, "", "", FailureDecision.retryAfter(Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void theLastAllowedAttemptLeavesNoneLeft() {
            assertThat(pending.hasAttemptsLeft()).isTrue();
            Run once = Run.pending("r2", "j1", 1, 5, T0, "shell", Map.of(), 60, T0);
            assertThat(once.hasAttemptsLeft()).isTrue();
            assertThat(claim(once, "w1", T0, T0.plusSeconds(30)).hasAttemptsLeft()).isFalse();
        }
    }

    @Nested
    class CancelAndRequeue {
        @Test
        void aPendingRunIsCancelledAtOnce() {
            Run cancelled = cancel(pending, T0, "operator");
            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(cancelled.error()).isEqualTo("operator");
        }

        @Test
        void aRunningRunIsAskedToStopAndStaysRunning() {
            Run asked = requestCancel(claim(pending, "w1", T0, T0.plusSeconds(30)));
            assertThat(asked.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(asked.cancelRequested()).isTrue();
            assertThatThrownBy(() -> requestCancel(pending)).isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void aSucceededRunCannotBeCancelledOrRequeued() {
            Run done = succeed(claim(pending, "w1", T0, T0.plusSeconds(30)), T0, "");
            assertThatThrownBy(() -> cancel(done, T0, "x")).isInstanceOf(IllegalRunTransitionException.class);
            assertThatThrownBy(() -> requeue(done, T0, 3)).isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void requeueGivesAFreshBudgetAndKeepsCountingAttempts() {
            Run dead = fail(claim(pending, "w1", T0, T0.plusSeconds(30)), T0, "", "x", FailureDecision.deadLetter());
            Run again = requeue(dead, T0.plusSeconds(60), 3);
            assertThat(again.status()).isEqualTo(RunStatus.PENDING);
            assertThat(again.attempt()).isEqualTo(1);
            assertThat(again.maxAttempts()).isEqualTo(4);
            assertThat(again.hasAttemptsLeft()).isTrue();
            assertThat(again.scheduledFor()).isEqualTo(T0.plusSeconds(60));
            assertThat(requeue(dead, T0, 1).maxAttempts()).isEqualTo(2);
            assertThatThrownBy(() -> requeue(dead, T0, 0)).hasMessageContaining(">= 1");
            assertThatThrownBy(() -> requeue(pending, T0, 3)).isInstanceOf(IllegalRunTransitionException.class);
        }

        @Test
        void aReleasedRunDoesNotLoseAnAttempt() {
            Run running = claim(pending, "w1", T0, T0.plusSeconds(30));
            Run released = release(running, T0.plusSeconds(5));
            assertThat(released.status()).isEqualTo(RunStatus.PENDING);
            assertThat(released.maxAttempts() - released.attempt())
                    .isEqualTo(pending.maxAttempts() - pending.attempt());
            assertThatThrownBy(() -> release(pending, T0)).isInstanceOf(IllegalRunTransitionException.class);
        }
    }
}
