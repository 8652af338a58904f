package io.forgeflow.domain.port;

import java.time.Duration;
import java.util.List;

/**
 * Deletes history that is older than the retention period, in bounded batches, so that the tables do not grow
 * forever. Only the scheduler leader calls it. Each call is one short statement that skips rows other transactions
 * hold ({@code SKIP LOCKED}), so it never waits for, or blocks, the claim engine for long.
 */
public interface Retention {

    /**
     * Deletes at most {@code limit} finished runs (succeeded, dead, cancelled) whose {@code finished_at} is older
     * than the database's now minus {@code olderThan}, with their attempt rows. Returns how many runs were deleted
     * (fewer than {@code limit}: nothing more is due now).
     */
    int deleteFinishedRuns(Duration olderThan, int limit);

    /**
     * Deletes at most {@code limit} jobs that can never run again (status {@code completed} or {@code cancelled})
     * whose last change is older than now minus {@code olderThan} and that have no runs left. Their idempotency
     * keys become free again. Returns how many jobs were deleted.
     */
    int deleteFinishedJobs(Duration olderThan, int limit);

    /**
     * Moves at most {@code limit} runs that finished more than {@code after} ago but within {@code keep}, with their
     * attempts, out of the live tables into the finished history, where they stay readable (by id, in lists, and for
     * a requeue) until {@link #dropHistory} removes their day as a whole; older ones are left to
     * {@link #deleteFinishedRuns}. Returns how many moved (fewer than {@code limit}: nothing more is due now). The
     * default moves nothing.
     */
    default int moveToHistory(Duration after, Duration keep, int limit) {
        return 0;
    }

    /**
     * Drops the days of finished history whose runs all finished more than {@code keep} ago, whole (no row-by-row
     * delete). Returns the days dropped. The default drops nothing.
     */
    default List<String> dropHistory(Duration keep) {
        return List.of();
    }

    /**
     * Brings the query planner's statistics of the scheduler's tables up to date when the database does not do it
     * itself (PostgreSQL with autovacuum off) and enough rows changed since they were last gathered: without them a
     * statement plan made while the tables were small is kept as they grow. Returns the tables it refreshed; empty
     * when the database keeps them itself or none was stale. The default does nothing.
     */
    default List<String> refreshStatistics() {
        return List.of();
    }
}
