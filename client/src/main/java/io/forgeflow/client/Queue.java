package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * A named queue ({@code GET /api/queues}): whether it is paused, its cluster-wide limits ({@code max_running} and
 * {@code rate_limit}, null when none), how many of its runs are pending (due now or later), due now and running, how
 * long the oldest due run has waited ({@code lag_seconds}), and, for a rate-limited queue, the starts counted in the
 * current window. A queue is a tenant's ({@code tenant}: each tenant's queue of a name has its own pause switch,
 * limits and counts; null when the answer has no {@code tenant} field, from a server that predates it). Which
 * tenant's a call reads or changes is the client's ({@link ForgeFlowClient#withTenant}); a list from a cluster-wide
 * token without one holds every tenant's.
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
        long startsInWindow,
        String tenant) {

    @JsonCreator
    public Queue {
    }

    /** A queue without a tenant (the fields before {@code tenant}; {@link #tenant()} null). */
    public Queue(String name, boolean paused, Integer maxRunning, RateLimit rateLimit, long pending, long due,
                 long running, double lagSeconds, long startsInWindow) {
        this(name, paused, maxRunning, rateLimit, pending, due, running, lagSeconds, startsInWindow, null);
    }

    /** At most {@code count} runs of the queue start in any window of {@code perSeconds} seconds (sliding). */
    public record RateLimit(int count, int perSeconds) {
    }
}
