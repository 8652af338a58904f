package io.forgeflow.domain.backoff;

import java.time.Duration;
import java.util.Objects;

/** What happens to a run whose attempt failed: retry after {@code delay}, or dead-letter. */
public record FailureDecision(boolean retries, Duration delay) {
    public FailureDecision {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        if (!retries && !delay.isZero()) {
            throw new IllegalArgumentException("a dead-letter decision has no delay");
        }
    }

    public static FailureDecision retryAfter(Duration delay) {
        return new FailureDecision(true, delay);
    }

    public static FailureDecision deadLetter() {
        return new FailureDecision(false, Duration.ZERO);
    }
}
