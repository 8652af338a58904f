package io.forgeflow.client;

/** How many runs are in each status ({@code GET /api/stats}). */
public record Stats(long pending, long running, long succeeded, long dead, long cancelled) {

    /** All runs counted. */
    public long total() {
        return pending + running + succeeded + dead + cancelled;
    }
}
