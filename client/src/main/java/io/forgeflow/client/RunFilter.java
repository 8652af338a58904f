package io.forgeflow.client;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The filters of {@link ForgeFlowClient#listRuns(RunFilter, Integer, String)}; every one given must hold. Times are
 * exclusive bounds. Unset filters are left out of the query.
 */
public final class RunFilter {
    String jobId;
    String status;
    String queue;
    String tenant;
    Instant scheduledAfter;
    Instant scheduledBefore;
    Instant finishedAfter;
    final Map<String, String> labels = new LinkedHashMap<>();

    public static RunFilter create() {
        return new RunFilter();
    }

    public RunFilter jobId(String jobId) {
        this.jobId = jobId;
        return this;
    }

    /** {@code waiting}, {@code pending}, {@code running}, {@code succeeded}, {@code dead} (the dead-letter queue), {@code cancelled}. */
    public RunFilter status(String status) {
        this.status = status;
        return this;
    }

    public RunFilter queue(String queue) {
        this.queue = queue;
        return this;
    }

    /** Only runs carrying this label; repeat for more (all must match). */
    public RunFilter label(String key, String value) {
        labels.put(key, value);
        return this;
    }

    public RunFilter scheduledAfter(Instant time) {
        this.scheduledAfter = time;
        return this;
    }

    public RunFilter scheduledBefore(Instant time) {
        this.scheduledBefore = time;
        return this;
    }

    public RunFilter finishedAfter(Instant time) {
        this.finishedAfter = time;
        return this;
    }

    /**
     * Only runs of this tenant ({@code ?tenant=}). A tenant-bound token sees only its own tenant whatever this says
     * (another one is a 403, {@code tenant_forbidden}); null: no filter.
     */
    public RunFilter tenant(String tenant) {
        this.tenant = tenant;
        return this;
    }
}
