package io.forgeflow.domain.backoff;

import java.time.Duration;
import java.util.Objects;

/**
 * What happens to a run whose attempt failed: retry after {@code delay}, or dead-letter.
 *
 * @param permanent  a dead-letter because the failure was permanent, not because the attempts ran out
 * @param retryAfter the downstream's requested wait as applied (capped), or null when it asked for none
 */
public record FailureDecision(boolean retries, Duration delay, boolean permanent, Duration retryAfter) {
    public FailureDecision {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        if (!retries && !delay.isZero()) {
            throw new IllegalArgumentException("a dead-letter decision has no delay");
        }
        if (retries && permanent) {
            throw new IllegalArgumentException("a permanent failure is not retried");
        }
        if (retryAfter != null && (!retries || retryAfter.compareTo(delay) > 0)) {
            throw new IllegalArgumentException("a retry-after belongs to a retry and is at most its delay");
        }
    }

    public FailureDecision(boolean retries, Duration delay) {
        this(retries, delay, false, null);
    }

    public static FailureDecision retryAfter(Duration delay) {
        return new FailureDecision(true, delay);
    }

    public static FailureDecision deadLetter() {
        return new FailureDecision(false, Duration.ZERO);
    }

    /** DEAD at once: the failure is permanent. */
    public static FailureDecision permanentFailure() {
        return new FailureDecision(false, Duration.ZERO, true, null);
    }
}
