package io.forgeflow.domain.port;

import io.forgeflow.domain.job.Job;

import java.util.Objects;

/**
 * A job as a list shows it: every field, but a payload only up to {@value #PAYLOAD_LIMIT_BYTES} bytes of JSON text; a
 * larger one is left out (an empty payload stands in, shown as null) and {@code payloadTruncated} says so. The job's
 * own route returns it whole.
 *
 * @param payloadTruncated whether the job's payload was left out for its size
 */
public record ListedJob(Job job, boolean payloadTruncated) {
    /** The largest payload (bytes of its JSON text as stored) a list item carries: 64 KiB. */
    public static final int PAYLOAD_LIMIT_BYTES = 64 * 1024;
    /** What a job item's field names and fixed-size values count for in a {@link ListBudget}, besides its texts. */
    public static final int ITEM_OVERHEAD_BYTES = 1024;

    public ListedJob {
        Objects.requireNonNull(job, "job");
    }
}
