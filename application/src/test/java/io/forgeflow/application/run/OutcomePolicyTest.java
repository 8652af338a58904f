package io.forgeflow.application.run;

import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where a run goes after an attempt: one decision for the worker's acknowledgements and the rescuer's recoveries. */
class OutcomePolicyTest {
    static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    final Highest random = new Highest();
    final OutcomePolicy policy = new OutcomePolicy(RETRY, random);

    @Test
    void aSuccessEndsTheRunWhateverElseIsTrue() {
        OutcomePolicy.Next next = policy.after(AttemptOutcome.SUCCEEDED, 3, 3, true, true, Duration.ofSeconds(9));

        assertThat(next).isEqualTo(new OutcomePolicy.Next(RunStatus.SUCCEEDED, Duration.ZERO, null));
        assertThat(next.retryAfter()).isNull();
        assertThat(random.bounds).isEmpty();
    }

    @Test
    void aCancellationEndsTheRunCancelled() {
        assertThat(policy.after(AttemptOutcome.CANCELLED, 1, 3, false, false, null))
                .isEqualTo(new OutcomePolicy.Next(RunStatus.CANCELLED, Duration.ZERO, null));
    }

    @Test
    void aGiveUpEndsTheRunCancelledWhateverAttemptsAreLeft() {
        assertThat(policy.after(AttemptOutcome.GAVE_UP, 1, 3, false, false, null))
                .isEqualTo(new OutcomePolicy.Next(RunStatus.CANCELLED, Duration.ZERO, null));
        assertThat(random.bounds).isEmpty();
    }

    @Test
    void aSnoozeGoesBackToPendingAfterItsSnoozeEvenAtTheLastAttempt() {
        OutcomePolicy.Next next = policy.after(AttemptOutcome.SNOOZED, 3, 3, false, false, Duration.ofHours(2));

        assertThat(next).isEqualTo(new OutcomePolicy.Next(RunStatus.PENDING, Duration.ofHours(2), null));
        assertThat(next.retryAfter()).isNull();
        assertThat(random.bounds).isEmpty();
        assertThat(policy.after(AttemptOutcome.SNOOZED, 1, 3, false, false, Duration.ZERO).delay()).isZero();
        assertThatThrownBy(() -> policy.after(AttemptOutcome.SNOOZED, 1, 3, false, false, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("a snooze needs its duration");
    }

    @ParameterizedTest
    @EnumSource(value = AttemptOutcome.class, names = {"FAILED", "TIMED_OUT", "LEASE_EXPIRED", "SNOOZED"})
    void aFailureOfARunAnOperatorAskedToCancelIsACancellation(AttemptOutcome outcome) {
        assertThat(policy.after(outcome, 1, 3, true, false, null).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(random.bounds).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = AttemptOutcome.class, names = {"FAILED", "TIMED_OUT", "LEASE_EXPIRED"})
    void aFailureWithAttemptsLeftIsRetriedAfterAJitteredDelayWithinTheCeiling(AttemptOutcome outcome) {
        OutcomePolicy.Next next = policy.after(outcome, 2, 3, false, false, null);

        assertThat(next.status()).isEqualTo(RunStatus.PENDING);
        assertThat(next.delay()).isEqualTo(Duration.ofSeconds(10));
        assertThat(random.bounds).containsExactly(10_001L);
        assertThat(next.failure().retries()).isTrue();
    }

    @Test
    void theLastAttemptsFailureIsDead() {
        OutcomePolicy.Next next = policy.after(AttemptOutcome.FAILED, 3, 3, false, false, null);

        assertThat(next.status()).isEqualTo(RunStatus.DEAD);
        assertThat(next.delay()).isZero();
        assertThat(next.failure().retries()).isFalse();
    }

    @Test
    void aPermanentFailureIsDeadAtOnce() {
        OutcomePolicy.Next next = policy.after(AttemptOutcome.FAILED, 1, 5, false, true, null);

        assertThat(next.status()).isEqualTo(RunStatus.DEAD);
        assertThat(next.failure().permanent()).isTrue();
    }

    @Test
    void aRetryAfterIsTheFloorOfTheDelayAndIsReported() {
        OutcomePolicy lowest = new OutcomePolicy(RETRY, new Lowest());

        OutcomePolicy.Next next = lowest.after(AttemptOutcome.FAILED, 1, 3, false, false, Duration.ofSeconds(120));

        assertThat(next.delay()).isEqualTo(Duration.ofSeconds(120));
        assertThat(next.retryAfter()).isEqualTo(Duration.ofSeconds(120));
    }

    @Test
    void anAttemptCountedAsZeroIsDecidedAsTheFirst() {
        assertThat(policy.after(AttemptOutcome.LEASE_EXPIRED, 0, 3, false, false, null).delay())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aReleaseIsNotDecided() {
        assertThatThrownBy(() -> policy.after(AttemptOutcome.RELEASED, 1, 3, false, false, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("released");
    }

    @Test
    void anExpiredLeaseBecomesTheAcknowledgementTheLostWorkerCouldNotSend() {
        RunFence fence = new RunFence("r1", "gone", 1);

        Acknowledgement retry = policy.afterExpiredLease(new ExpiredLease(fence, "j1", 3, false));
        Acknowledgement dead = policy.afterExpiredLease(new ExpiredLease(fence, "j1", 1, false));
        Acknowledgement cancelled = policy.afterExpiredLease(new ExpiredLease(fence, "j1", 3, true));

        assertThat(retry).isEqualTo(new Acknowledgement(fence, AttemptOutcome.LEASE_EXPIRED, RunStatus.PENDING,
                Duration.ofSeconds(5), null, "lease expired: worker gone stopped heartbeating during attempt 1"));
        assertThat(dead.next()).isEqualTo(RunStatus.DEAD);
        assertThat(cancelled.next()).isEqualTo(RunStatus.CANCELLED);
        assertThat(cancelled.retryDelay()).isZero();
    }

    @Test
    void aDecisionNamesItsStatusAndDelay() {
        assertThatThrownBy(() -> new OutcomePolicy.Next(null, Duration.ZERO, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new OutcomePolicy.Next(RunStatus.DEAD, null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new OutcomePolicy(null, random)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new OutcomePolicy(RETRY, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> policy.after(null, 1, 1, false, false, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aJobsOwnBaseAndCapBoundTheDrawExactly() {
        RetryOverride own = new RetryOverride(1, 2);

        List<Duration> delays = new ArrayList<>();
        for (int attempt = 1; attempt <= 4; attempt++) {
            delays.add(policy.after(AttemptOutcome.FAILED, attempt, 10, false, false, null, own).delay());
        }

        // ceilings 1 s, 2 s, then the cap 2 s: the draw's bound is the ceiling in ms + 1 (both ends included)
        assertThat(random.bounds).containsExactly(1_001L, 2_001L, 2_001L, 2_001L);
        assertThat(delays).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2),
                Duration.ofSeconds(2));
        assertThat(new OutcomePolicy(RETRY, new Lowest()).after(AttemptOutcome.FAILED, 3, 10, false, false, null, own)
                .delay()).isZero();
    }

    @Test
    void withoutAPolicyOfItsOwnTheNodesDecides() {
        policy.after(AttemptOutcome.FAILED, 2, 10, false, false, null, null);

        assertThat(random.bounds).containsExactly(10_001L);
    }

    @Test
    void aPartTheJobLeavesOutIsTheNodes() {
        policy.after(AttemptOutcome.FAILED, 9, 10, false, false, null, new RetryOverride(60, null));
        policy.after(AttemptOutcome.FAILED, 1, 10, false, false, null, new RetryOverride(null, 3));
        policy.after(AttemptOutcome.FAILED, 1, 10, false, false, null, new RetryOverride(null, 600));

        // base 60 s doubled 8 times is past the node's cap of 15 min; the job's cap of 3 s is below the node's base
        assertThat(random.bounds).containsExactly(900_001L, 3_001L, 5_001L);
    }

    @Test
    void theJobsCapAlsoCapsARetryAfter() {
        OutcomePolicy lowest = new OutcomePolicy(RETRY, new Lowest());

        OutcomePolicy.Next next = lowest.after(AttemptOutcome.FAILED, 1, 3, false, false, Duration.ofSeconds(120),
                new RetryOverride(1, 2));

        assertThat(next.delay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(next.retryAfter()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void anExpiredLeaseIsRetriedWithItsRunsOwnPolicy() {
        RunFence fence = new RunFence("r1", "gone", 3);

        Acknowledgement retry = policy.afterExpiredLease(new ExpiredLease(fence, "j1", 5, false,
                new RetryOverride(1, 2)));

        assertThat(retry.next()).isEqualTo(RunStatus.PENDING);
        assertThat(retry.retryDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(random.bounds).containsExactly(2_001L);
    }

    static final class Highest implements RandomGenerator {
        final List<Long> bounds = new ArrayList<>();

        @Override
        public long nextLong() {
            return Long.MAX_VALUE;
        }

        @Override
        public long nextLong(long bound) {
            bounds.add(bound);
            return bound - 1;
        }
    }

    static final class Lowest implements RandomGenerator {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public long nextLong(long bound) {
            return 0;
        }
    }
}
