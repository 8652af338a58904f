package io.forgeflow.domain.tenant;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.RateLimit;

/**
 * What an operator sets for one tenant (README "Tenants", fair share): its weight in the claim's fair share, and its
 * cluster-wide limits (null: none).
 *
 * @param weight     the tenant's share of the workers' slots while other tenants have due runs too, relative to
 *                   theirs: a tenant of weight 3 starts three runs for each run of a tenant of weight 1
 * @param maxRunning at most this many of the tenant's runs run at once, on all nodes together
 * @param rateLimit  at most so many of the tenant's runs start in any window
 */
public record TenantSettings(int weight, Integer maxRunning, RateLimit rateLimit) {
    public static final int MAX_WEIGHT = 1_000;
    public static final int MAX_RUNNING_LIMIT = 100_000;
    /** A tenant nobody configured: weight 1, no limits. */
    public static final TenantSettings DEFAULT = new TenantSettings(1, null, null);

    public TenantSettings {
        if (weight < 1 || weight > MAX_WEIGHT) {
            throw new ValidationException("weight", "weight must be a whole number from 1 to " + MAX_WEIGHT
                    + " (1 when not set); was " + weight);
        }
        if (maxRunning != null && (maxRunning < 1 || maxRunning > MAX_RUNNING_LIMIT)) {
            throw new ValidationException("max_running", "max_running must be between 1 and " + MAX_RUNNING_LIMIT
                    + ", or null for no limit; was " + maxRunning);
        }
    }

    public boolean isLimited() {
        return maxRunning != null || rateLimit != null;
    }
}
