package io.forgeflow.domain.queue;

import io.forgeflow.domain.error.ValidationException;

/**
 * A queue's cluster-wide limits; null means no limit.
 *
 * @param maxRunning at most this many of the queue's runs are running at once, on all nodes together
 * @param rateLimit  at most so many starts per window
 */
public record QueueLimits(Integer maxRunning, RateLimit rateLimit) {
    public static final int MAX_RUNNING_LIMIT = 100_000;
    public static final QueueLimits NONE = new QueueLimits(null, null);

    public QueueLimits {
        if (maxRunning != null && (maxRunning < 1 || maxRunning > MAX_RUNNING_LIMIT)) {
            throw new ValidationException("max_running", "max_running must be between 1 and " + MAX_RUNNING_LIMIT
                    + ", or null for no limit; was " + maxRunning);
        }
    }

    public boolean isLimited() {
        return maxRunning != null || rateLimit != null;
    }
}
