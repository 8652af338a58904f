package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.QueueStats;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * The queue as the metrics see it ({@link QueueStats}): one statement of index-served counts per status, and the age of
 * the oldest due pending run from one probe of the pending queue index per priority. Reads only, no locks.
 */
public final class PostgresQueueStats implements QueueStats {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresQueueStats(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public Snapshot snapshot() {
        Rows.QueueRow row = jdbi.withExtension(StatsSql.class, sql -> sql.snapshot(clock.now()));
        return new Snapshot(row.depth(), Duration.ofNanos((long) (Math.max(0, row.lagSeconds()) * 1e9)),
                row.throttled(), row.tenants());
    }
}
