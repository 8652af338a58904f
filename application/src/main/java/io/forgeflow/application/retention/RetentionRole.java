package io.forgeflow.application.retention;

import io.forgeflow.application.support.PeriodicTask;

import java.time.Duration;
import java.util.Objects;

/**
 * The leader's retention, on a node with the scheduler role or an embedded worker that runs it: a
 * {@link RetentionSweeper} pass every {@code interval} (it acts only while its process leads), and a check of the
 * planner's statistics every {@code statisticsInterval} (where autovacuum is off).
 */
public final class RetentionRole {
    private final PeriodicTask sweeps;
    private final PeriodicTask statistics;

    public RetentionRole(RetentionSweeper sweeper, Duration interval, Duration statisticsInterval) {
        Objects.requireNonNull(sweeper, "sweeper");
        this.sweeps = new PeriodicTask("ff-retention", interval, sweeper::runOnce);
        this.statistics = new PeriodicTask("ff-statistics", statisticsInterval, () -> {
            sweeper.refreshStatisticsOnce();
        });
    }

    public void start() {
        sweeps.start();
        statistics.start();
    }

    public void stop() {
        sweeps.stop();
        statistics.stop();
    }
}
