package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

/**
 * A limit on how many runs sharing {@code key} may start in any {@code per_seconds} window across the cluster (issue
 * 44, README "Flow control"): the queue rate limit, keyed. Every attempt's start counts. A run over its key's limit
 * stays pending, its due time moved to when the window has room. Keys cost nothing while idle.
 * As submitted any part may be null; {@link #validate} checks it.
 */
public record Throttle(String key, Integer count, Integer perSeconds) {
    public static final int MAX_COUNT = 100_000;
    public static final int MAX_PER_SECONDS = 86_400;

    /**
     * The checked throttle: key 1-200 characters without control characters, count 1-100,000, per_seconds 1-86,400.
     * Throws a {@link ValidationException} naming {@code throttle.<part>}.
     */
    public Throttle validate() {
        String k = Flow.key("throttle.key", key, "\"partner-api:account-7\"");
        if (count == null) {
            throw new ValidationException("throttle.count", "throttle.count is required: how many runs with the key "
                    + "may start per window, e.g. 5");
        }
        if (perSeconds == null) {
            throw new ValidationException("throttle.per_seconds", "throttle.per_seconds is required: the window's "
                    + "length in seconds, e.g. 2");
        }
        return new Throttle(k, Flow.range("throttle.count", count, 1, MAX_COUNT),
                Flow.range("throttle.per_seconds", perSeconds, 1, MAX_PER_SECONDS));
    }
}
