package io.forgeflow.domain.queue;

import io.forgeflow.domain.error.ValidationException;

/**
 * At most {@code count} runs of a queue start in any window of {@code perSeconds} seconds, across the cluster
 * (a sliding window: the starts of the last {@code perSeconds} seconds are counted, not a bucket that refills).
 */
public record RateLimit(int count, int perSeconds) {
    public static final int MAX_COUNT = 1_000_000;
    public static final int MAX_PER_SECONDS = 86_400;

    public RateLimit {
        if (count < 1 || count > MAX_COUNT) {
            throw new ValidationException("rate_limit.count", "rate_limit.count must be between 1 and " + MAX_COUNT
                    + ", was " + count);
        }
        if (perSeconds < 1 || perSeconds > MAX_PER_SECONDS) {
            throw new ValidationException("rate_limit.per_seconds", "rate_limit.per_seconds must be between 1 and "
                    + MAX_PER_SECONDS + " (a day), was " + perSeconds);
        }
    }
}
