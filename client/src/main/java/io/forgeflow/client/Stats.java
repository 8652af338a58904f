package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * How many runs are in each status ({@code GET /api/stats}). {@code waiting}: runs waiting for their job's parents;
 * 0 from a server that predates workflows (it has none).
 */
public record Stats(long pending, long running, long succeeded, long dead, long cancelled, long waiting) {

    @JsonCreator
    public Stats {
    }

    /** Counts without waiting runs (the fields before workflows). */
    public Stats(long pending, long running, long succeeded, long dead, long cancelled) {
        this(pending, running, succeeded, dead, cancelled, 0);
    }

    /** All runs counted. */
    public long total() {
        return waiting + pending + running + succeeded + dead + cancelled;
    }
}
