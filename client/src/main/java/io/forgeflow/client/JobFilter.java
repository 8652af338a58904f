package io.forgeflow.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The filters of {@link ForgeFlowClient#listJobs(JobFilter, Integer, String)}; every one given must hold. Unset
 * filters are left out of the query.
 */
public final class JobFilter {
    String status;
    String queue;
    String tenant;
    String namePrefix;
    final Map<String, String> labels = new LinkedHashMap<>();

    public static JobFilter create() {
        return new JobFilter();
    }

    /** Only jobs in this status ({@code deleted} lists tombstones, which no other status does). */
    public JobFilter status(String status) {
        this.status = status;
        return this;
    }

    public JobFilter queue(String queue) {
        this.queue = queue;
        return this;
    }

    /** Only jobs carrying this label; repeat for more (all must match). */
    public JobFilter label(String key, String value) {
        labels.put(key, value);
        return this;
    }

    /** Only jobs whose name starts with this (case-sensitive, no wildcards). */
    public JobFilter namePrefix(String namePrefix) {
        this.namePrefix = namePrefix;
        return this;
    }

    /**
     * Only jobs of this tenant ({@code ?tenant=}). A tenant-bound token sees only its own tenant whatever this says
     * (another one is a 403, {@code tenant_forbidden}); null: no filter.
     */
    public JobFilter tenant(String tenant) {
        this.tenant = tenant;
        return this;
    }
}
