package io.forgeflow.client;

/**
 * A named queue ({@code GET /api/queues}): whether it is paused, its cluster-wide limits ({@code max_running} and
 * {@code rate_limit}, null when none), how many of its runs are pending (due now or later), due now and running, how
 * long the oldest due run has waited ({@code lag_seconds}), and, for a rate-limited queue, the starts counted in the
 * current window.
 */
public record Queue(
        String name,
        boolean paused,
        Integer maxRunning,
        RateLimit rateLimit,
        long pending,
        long due,
        long running,
        double lagSeconds,
        long startsInWindow) {

    /** At most {@code count} runs of the queue start in any window of {@code perSeconds} seconds (sliding). */
    public record RateLimit(int count, int perSeconds) {
    }
}
