package io.forgeflow.client;

/**
 * A tenant ({@code GET /api/tenants}): its weight in the claim's fair share (1 when not set), its cluster-wide
 * limits ({@code max_running} and {@code rate_limit}, null when none), how many of its runs are pending (due now or
 * later) and running, and, for a rate-limited tenant, the starts counted in the current window.
 */
public record Tenant(
        String name,
        int weight,
        Integer maxRunning,
        RateLimit rateLimit,
        long pending,
        long running,
        long startsInWindow) {

    /** At most {@code count} runs of the tenant start in any window of {@code perSeconds} seconds (sliding). */
    public record RateLimit(int count, int perSeconds) {
    }
}
