package io.forgeflow.client;

/**
 * A tenant's fair-share weight and cluster-wide limits ({@code GET /api/tenants}), and its load: how many of its runs
 * are pending (due now or later) and running, and, for a rate-limited tenant, the starts counted in the current
 * window. {@code maxRunning} and {@code rateLimit} are null when there is no such limit.
 *
 * @param weight its share of the workers' slots while other tenants have due runs too (1-1000; 1 when not set)
 */
public record Tenant(
        String name,
        int weight,
        Integer maxRunning,
        Queue.RateLimit rateLimit,
        long pending,
        long running,
        long startsInWindow) {
}
