package io.forgeflow.admin.cluster;

import java.time.Instant;

/**
 * A batch as {@code GET /api/batches/{id}} answers it: its jobs counted by the status of their latest run,
 * {@code status} {@code open} or {@code completed}, and the job made to run on completion (null when none).
 */
public record BatchProgress(String id, String name, Instant createdAt, Instant completedAt, long total, long waiting,
                            long pending, long running, long succeeded, long dead, long cancelled,
                            String onCompleteJobId, String status) {
    public static final String OPEN = "open";
    public static final String COMPLETED = "completed";

    public boolean completed() {
        return COMPLETED.equals(status);
    }

    /** Jobs that have ended: succeeded, dead or cancelled. */
    public long ended() {
        return succeeded + dead + cancelled;
    }
}
