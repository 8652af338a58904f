package io.forgeflow.domain.backoff;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryPolicyTest {
    final RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    @ParameterizedTest(name = "after attempt {0}: ceiling {1} ms")
    @CsvSource({"1, 5000", "2, 10000", "3, 20000", "4, 40000", "5, 80000", "6, 160000", "7, 320000", "8, 640000",
            "9, 900000", "10, 900000", "63, 900000", "64, 900000", "100, 900000", "2147483647, 900000"})
    void theCeilingDoublesFromTheBaseUpToTheCap(int attempt, long ceilingMillis) {
        assertThat(policy.ceilingAfter(attempt)).isEqualTo(Duration.ofMillis(ceilingMillis));
    }

    @ParameterizedTest
    @CsvSource({"1", "2", "5", "9", "30"})
    void delaysStayWithinZeroAndTheCeilingAndUseTheWholeRange(int attempt) {
        RandomGenerator random = new SplittableRandom(42);
        long ceiling = policy.ceilingAfter(attempt).toMillis();
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 20_000; i++) {
            long d = policy.delayAfter(attempt, random).toMillis();
            assertThat(d).isBetween(0L, ceiling);
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        // full jitter: the draws reach both ends of [0, ceiling], not a narrow band around it
        assertThat(min).isLessThan(ceiling / 100 + 1);
        assertThat(max).isGreaterThan(ceiling - ceiling / 100 - 1);
    }

    @Test
    void theDelayIsTheRandomDrawBoundedByTheCeiling() {
        RandomGenerator top = new FixedRandom(Long.MAX_VALUE);
        RandomGenerator bottom = new FixedRandom(0);
        assertThat(policy.delayAfter(3, top)).isEqualTo(Duration.ofSeconds(20));
        assertThat(policy.delayAfter(3, bottom)).isEqualTo(Duration.ZERO);
    }

    @Test
    void aFailureWithAttemptsLeftRetriesAndTheLastOneDeadLetters() {
        RandomGenerator r = new FixedRandom(Long.MAX_VALUE);
        assertThat(policy.decide(1, 3, r)).isEqualTo(FailureDecision.retryAfter(Duration.ofSeconds(5)));
        assertThat(policy.decide(2, 3, r)).isEqualTo(FailureDecision.retryAfter(Duration.ofSeconds(10)));
        assertThat(policy.decide(3, 3, r)).isEqualTo(FailureDecision.deadLetter());
        assertThat(policy.decide(4, 3, r)).isEqualTo(FailureDecision.deadLetter());
        assertThat(policy.decide(1, 1, r).retries()).isFalse();
    }

    @Test
    void nonsensicalPoliciesAndAttemptsAreRefused() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ZERO, Duration.ofMinutes(1))).hasMessageContaining("positive");
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(-1), Duration.ofMinutes(1))).hasMessageContaining("positive");
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofMinutes(2), Duration.ofMinutes(1))).hasMessageContaining("at least the base");
        assertThatThrownBy(() -> policy.ceilingAfter(0)).hasMessageContaining(">= 1");
        assertThat(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1)).ceilingAfter(5)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aBaseUnderOneMillisecondIsRefusedBecauseDelaysAreWholeMilliseconds() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofNanos(999_999), Duration.ofMinutes(1)))
                .hasMessageContaining("at least 1 ms");
        assertThat(new RetryPolicy(Duration.ofMillis(1), Duration.ofMinutes(1)).ceilingAfter(1))
                .isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void theCapOnlyAppliesOnceTheDoubledBaseExceedsIt() {
        // cap >> 1 == base, but base * 2 is still below the cap by one millisecond
        RetryPolicy justAbove = new RetryPolicy(Duration.ofMillis(5000), Duration.ofMillis(10_001));
        assertThat(justAbove.ceilingAfter(2)).isEqualTo(Duration.ofMillis(10_000));
        assertThat(justAbove.ceilingAfter(3)).isEqualTo(Duration.ofMillis(10_001));
    }

    @Test
    void decisionsAreConsistent() {
        assertThatThrownBy(() -> new FailureDecision(false, Duration.ofSeconds(1))).hasMessageContaining("no delay");
        assertThatThrownBy(() -> new FailureDecision(true, Duration.ofSeconds(-1))).hasMessageContaining("negative");
    }

    @Test
    void aPermanentFailureIsDeadAtOnceEvenWithAttemptsLeft() {
        RandomGenerator r = new FixedRandom(Long.MAX_VALUE);
        FailureDecision d = policy.decide(1, 5, true, null, r);
        assertThat(d).isEqualTo(FailureDecision.permanentFailure());
        assertThat(d.retries()).isFalse();
        assertThat(d.permanent()).isTrue();
        assertThat(d.delay()).isZero();
        assertThat(policy.decide(5, 5, r).permanent()).isFalse();
    }

    @Test
    void aRetryAfterIsAFloorAboveTheJitteredDraw() {
        // draw 0 (bottom): the retry-after decides; draw at the ceiling (5 s after attempt 1) above a 2 s retry-after
        FailureDecision floor = policy.decide(1, 3, false, Duration.ofSeconds(2), new FixedRandom(0));
        assertThat(floor).isEqualTo(new FailureDecision(true, Duration.ofSeconds(2), false, Duration.ofSeconds(2)));
        FailureDecision drawn = policy.decide(1, 3, false, Duration.ofSeconds(2), new FixedRandom(Long.MAX_VALUE));
        assertThat(drawn).isEqualTo(new FailureDecision(true, Duration.ofSeconds(5), false, Duration.ofSeconds(2)));
        FailureDecision equal = policy.decide(1, 3, false, Duration.ofSeconds(5), new FixedRandom(Long.MAX_VALUE));
        assertThat(equal.delay()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aRetryAfterIsCappedByTheCap() {
        RetryPolicy small = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30));
        FailureDecision d = small.decide(1, 3, false, Duration.ofHours(1), new FixedRandom(0));
        assertThat(d.delay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(small.decide(1, 3, false, Duration.ofSeconds(30), new FixedRandom(0)).delay())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aRetryAfterDoesNotOutlastTheAttempts() {
        assertThat(policy.decide(3, 3, false, Duration.ofSeconds(2), new FixedRandom(0)))
                .isEqualTo(FailureDecision.deadLetter());
        assertThat(policy.decide(1, 3, false, null, new FixedRandom(0)))
                .isEqualTo(FailureDecision.retryAfter(Duration.ZERO));
        assertThat(policy.decide(1, 3, false, Duration.ofSeconds(-1), new FixedRandom(0)).retryAfter()).isNull();
    }

    @Test
    void permanentAndRetryAfterDecisionsAreConsistent() {
        assertThatThrownBy(() -> new FailureDecision(true, Duration.ZERO, true, null)).hasMessageContaining("permanent");
        assertThatThrownBy(() -> new FailureDecision(false, Duration.ZERO, false, Duration.ZERO))
                .hasMessageContaining("retry-after");
        assertThatThrownBy(() -> new FailureDecision(true, Duration.ofSeconds(1), false, Duration.ofSeconds(2)))
                .hasMessageContaining("at most its delay");
        assertThat(new FailureDecision(true, Duration.ofSeconds(2), false, Duration.ofSeconds(2)).retryAfter())
                .isEqualTo(Duration.ofSeconds(2));
    }

    /** Draws {@code min(value, bound - 1)}: the top or the bottom of any range. */
    record FixedRandom(long value) implements RandomGenerator {
        @Override
        public long nextLong() {
            return value;
        }

        @Override
        public long nextLong(long bound) {
            return Math.min(value, bound - 1);
        }
    }

    @Test
    void aBaseThatExactlyFitsUnderTheCapDoublesInsteadOfJumpingToTheCap() {
        RetryPolicy uneven = new RetryPolicy(Duration.ofMillis(5_000), Duration.ofMillis(20_001));

        assertThat(uneven.ceilingAfter(3)).isEqualTo(Duration.ofMillis(20_000));
        assertThat(uneven.ceilingAfter(4)).isEqualTo(Duration.ofMillis(20_001));
    }

    @Test
    void theLastAllowedAttemptIsDeadNotRetried() {
        RandomGenerator random = new SplittableRandom(1);

        assertThat(policy.decide(3, 3, false, null, random).retries()).isFalse();
        assertThat(policy.decide(2, 3, false, null, random).retries()).isTrue();
    }
}
