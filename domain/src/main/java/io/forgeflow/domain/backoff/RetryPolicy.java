package io.forgeflow.domain.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: after failed attempt n, the next attempt is due after
 * {@code random(0, min(cap, base * 2^(n-1)))}, drawn uniformly (whole milliseconds, both ends included).
 * With base = 5 s and cap = 15 min the ceilings are 5 s, 10 s, 20 s, 40 s ... and 15 min from attempt 9 on.
 * Full jitter spreads the retries of many runs that failed together (a downstream outage) over the whole window,
 * so they do not return in lock-step.
 */
public record RetryPolicy(Duration base, Duration cap) {
    /** The default: base 5 s, cap 15 min. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    public RetryPolicy {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(cap, "cap");
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("retry base must be positive, was " + base);
        }
        if (base.toMillis() < 1) {
            // ceilingAfter counts whole milliseconds: a base of 0 ms would never back off
            throw new IllegalArgumentException("retry base must be at least 1 ms (delays are whole milliseconds), was "
                    + base);
        }
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("retry cap (" + cap + ") must be at least the base (" + base + ")");
        }
    }

    /** The upper bound of the delay after failed attempt {@code failedAttempt}: min(cap, base * 2^(n-1)). */
    public Duration ceilingAfter(int failedAttempt) {
        if (failedAttempt < 1) {
            throw new IllegalArgumentException("failedAttempt must be >= 1, was " + failedAttempt);
        }
        long baseMillis = base.toMillis();
        long capMillis = cap.toMillis();
        int doublings = failedAttempt - 1;
        // base * 2^doublings > cap  <=>  base > cap >> doublings; checked without overflow
        if (doublings >= 63 || baseMillis > (capMillis >> doublings)) {
            return Duration.ofMillis(capMillis);
        }
        return Duration.ofMillis(baseMillis << doublings);
    }

    /** A delay drawn uniformly from [0, ceilingAfter(failedAttempt)]. */
    public Duration delayAfter(int failedAttempt, RandomGenerator random) {
        long ceiling = ceilingAfter(failedAttempt).toMillis();
        return Duration.ofMillis(random.nextLong(ceiling + 1));
    }

    /**
     * The decision after attempt {@code failedAttempt} of {@code maxAttempts} failed: a retry with a jittered
     * delay while attempts are left, else the dead-letter queue.
     */
    public FailureDecision decide(int failedAttempt, int maxAttempts, RandomGenerator random) {
        return decide(failedAttempt, maxAttempts, false, null, random);
    }

    /**
     * As {@link #decide(int, int, RandomGenerator)}, for a failure that may be {@code permanent} (DEAD at once) or
     * carry the downstream's {@code retryAfter} (null: none). A retry-after is a floor, capped by the cap: the delay is
     * max(jittered draw, min(retryAfter, cap)). Cap 15 min, Retry-After 120 s, draw 7 s: 120 s; Retry-After 1 h: 15 min.
     */
    public FailureDecision decide(int failedAttempt, int maxAttempts, boolean permanent, Duration retryAfter,
                                  RandomGenerator random) {
        if (permanent) {
            return FailureDecision.permanentFailure();
        }
        if (failedAttempt >= maxAttempts) {
            return FailureDecision.deadLetter();
        }
        Duration drawn = delayAfter(failedAttempt, random);
        if (retryAfter == null || retryAfter.isNegative()) {
            return FailureDecision.retryAfter(drawn);
        }
        Duration floor = Duration.ofMillis(Math.min(retryAfter.toMillis(), cap.toMillis()));
        Duration delay = Duration.ofMillis(Math.max(drawn.toMillis(), floor.toMillis()));
        return new FailureDecision(true, delay, false, floor);
    }
}
