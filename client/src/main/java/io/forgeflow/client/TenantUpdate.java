package io.forgeflow.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of {@code PUT /api/tenants/{name}}: only the settings set here are sent, so the others keep their value on
 * the server. {@code TenantUpdate.create().weight(3)} changes only the weight; {@link #resetWeight()} sends null (the
 * weight goes back to 1), {@link #clearMaxRunning()} and {@link #clearRateLimit()} send null, which removes that
 * limit.
 */
public final class TenantUpdate {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private TenantUpdate() {
    }

    /** An update that changes nothing yet. */
    public static TenantUpdate create() {
        return new TenantUpdate();
    }

    /**
     * The tenant's weight in the claim's fair share (1-1000): while both have due runs, a tenant of weight 3 gets three
     * starts for each start of a tenant of weight 1. Null resets it to 1.
     */
    public TenantUpdate weight(Integer weight) {
        fields.put("weight", weight);
        return this;
    }

    public TenantUpdate resetWeight() {
        return weight(null);
    }

    /** At most {@code maxRunning} runs of the tenant at once, on all nodes together (1-100000); null clears it. */
    public TenantUpdate maxRunning(Integer maxRunning) {
        fields.put("max_running", maxRunning);
        return this;
    }

    public TenantUpdate clearMaxRunning() {
        return maxRunning(null);
    }

    /** At most {@code count} starts (1-1000000) in any {@code perSeconds} (1-86400) seconds. */
    public TenantUpdate rateLimit(int count, int perSeconds) {
        Map<String, Object> rate = new LinkedHashMap<>();
        rate.put("count", count);
        rate.put("per_seconds", perSeconds);
        fields.put("rate_limit", rate);
        return this;
    }

    public TenantUpdate clearRateLimit() {
        fields.put("rate_limit", null);
        return this;
    }

    /** The JSON object to send, in snake_case: the fields set, null for a reset weight or a cleared limit. */
    public Map<String, Object> body() {
        return Collections.unmodifiableMap(fields);
    }

    @Override
    public String toString() {
        return "TenantUpdate" + fields;
    }
}
