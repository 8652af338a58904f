package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.Retention;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Retention on PostgreSQL ({@link Retention}). Runs: one {@code DELETE} per batch over the oldest finished runs,
 * found by the partial index on {@code finished_at}, locked with {@code SKIP LOCKED}; their attempt rows go by
 * {@code ON DELETE CASCADE}. Jobs: one short transaction per batch that first locks the candidates (so no run can be
 * added to them meanwhile), then deletes those that still have no runs.
 */
public final class PostgresRetention implements Retention {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresRetention(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public int deleteFinishedRuns(Duration olderThan, int limit) {
        long millis = PostgresRunQueue.positiveMillis(olderThan, "olderThan");
        checkLimit(limit);
        return jdbi.withExtension(RetentionSql.class, sql -> sql.deleteFinishedRuns(millis, limit, clock.now()));
    }

    @Override
    public int deleteFinishedJobs(Duration olderThan, int limit) {
        long millis = PostgresRunQueue.positiveMillis(olderThan, "olderThan");
        checkLimit(limit);
        return jdbi.inTransaction(handle -> {
            RetentionSql sql = handle.attach(RetentionSql.class);
            List<String> locked = sql.lockFinishedJobs(millis, limit, clock.now());
            return locked.isEmpty() ? 0 : sql.deleteJobs(locked.toArray(String[]::new));
        });
    }

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be between 1 and 100000, was " + limit);
        }
    }
}
