package io.forgeflow.application.retention;

import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.Retention;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.function.ObjIntConsumer;

/**
 * On the leader: deletes what is older than the retention period, so that the tables do not grow forever.
 *
 * <ul>
 *   <li>Finished runs older than {@code historyAfter} move, with their attempts, to the finished history, and the
 *       days of history older than the retention are dropped whole;</li>
 *   <li>Finished runs (succeeded, dead, cancelled) still among the live runs whose {@code finished_at} is older than
 *       the retention (those the move leaves there), with their attempt rows;</li>
 *   <li>then jobs that can never run again (completed one-off jobs, cancelled jobs) unchanged for as long, once
 *       they have no runs left;</li>
 *   <li>and the rows of nodes unseen for {@code nodeKeep} (nodes that died without saying goodbye).</li>
 * </ul>
 *
 * Deletes go in batches of {@value #BATCH} rows, one short statement each (rows that another transaction holds are
 * skipped, not waited for), with a short pause between batches so that a large backlog never holds locks or the
 * disk for long; a pass stops after {@value #MAX_BATCHES_PER_PASS} batches and the next pass continues.
 */
public final class RetentionSweeper {
    /** Rows per delete or move statement. */
    public static final int BATCH = 1_000;
    /** Batches per table in one pass (a pass deletes at most this many times {@link #BATCH} rows per table). */
    public static final int MAX_BATCHES_PER_PASS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(RetentionSweeper.class);

    private final Retention retention;
    private final NodeRegistry nodes;
    private final LeaderElection election;
    private final Duration keep;
    private final Duration nodeKeep;
    private final Duration pause;
    private final int batch;
    private final ObjIntConsumer<String> deleted;
    private final Duration historyAfter;
    /** What the {@code deleted} consumer is told for runs moved to the finished history, and for days dropped. */
    public static final String MOVED = "history";
    public static final String DAYS_DROPPED = "history_days";
    /** How long a finished run stays among the live runs by default before it moves to the finished history. */
    public static final Duration DEFAULT_HISTORY_AFTER = Duration.ofHours(1);

    /**
     * @param keep     the retention period (FORGEFLOW_RETENTION)
     * @param nodeKeep how long an unseen node's row is kept
     * @param pause    the pause between two batches (zero in tests)
     * @param deleted  told how many rows of which kind ({@code runs}, {@code jobs}, {@code nodes}) each batch deleted,
     *                 how many runs it moved ({@link #MOVED}) and days it dropped ({@link #DAYS_DROPPED}) (metrics);
     *                 may be null
     */
    public RetentionSweeper(Retention retention, NodeRegistry nodes, LeaderElection election, Duration keep,
                            Duration nodeKeep, Duration pause, ObjIntConsumer<String> deleted) {
        this(retention, nodes, election, keep, nodeKeep, pause, BATCH, deleted);
    }

    /** @param batch rows per delete statement */
    public RetentionSweeper(Retention retention, NodeRegistry nodes, LeaderElection election, Duration keep,
                            Duration nodeKeep, Duration pause, int batch, ObjIntConsumer<String> deleted) {
        this(retention, nodes, election, keep, nodeKeep, pause, batch, DEFAULT_HISTORY_AFTER, deleted);
    }

    /**
     * @param historyAfter how long a finished run stays among the live runs before it moves to the finished history
     *                     (FORGEFLOW_HISTORY_AFTER); null, or not shorter than {@code keep}: runs are deleted from
     *                     the live tables at retention, as before history existed
     */
    public RetentionSweeper(Retention retention, NodeRegistry nodes, LeaderElection election, Duration keep,
                            Duration nodeKeep, Duration pause, int batch, Duration historyAfter,
                            ObjIntConsumer<String> deleted) {
        this.historyAfter = historyAfter == null ? null : requirePositive(historyAfter, "historyAfter");
        this.retention = Objects.requireNonNull(retention, "retention");
        this.nodes = nodes;
        this.election = Objects.requireNonNull(election, "election");
        this.keep = requirePositive(keep, "keep");
        this.nodeKeep = requirePositive(nodeKeep, "nodeKeep");
        this.pause = pause == null || pause.isNegative() ? Duration.ZERO : pause;
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1, was " + batch);
        }
        this.batch = batch;
        this.deleted = deleted == null ? (what, n) -> { } : deleted;
    }

    /** One pass (only when this node leads). Returns what it deleted. */
    public Sweep runOnce() {
        if (!election.isLeader()) {
            return new Sweep(0, 0, 0);
        }
        int moved = historyAfter == null || historyAfter.compareTo(keep) >= 0 ? 0
                : sweep(MOVED, () -> retention.moveToHistory(historyAfter, keep, batch));
        java.util.List<String> days = election.isLeader() ? retention.dropHistory(keep) : java.util.List.of();
        if (!days.isEmpty()) {
            deleted.accept(DAYS_DROPPED, days.size());
        }
        if (moved > 0 || !days.isEmpty()) {
            LOG.info("history: moved {} run(s) finished more than {} ago; dropped {} partition(s) of history "
                    + "(by first day) {}",
                    moved, historyAfter, days.size(), days);
        }
        int runs = sweep("runs", () -> retention.deleteFinishedRuns(keep, batch));
        int jobs = sweep("jobs", () -> retention.deleteFinishedJobs(keep, batch));
        int gone = 0;
        if (nodes != null && election.isLeader()) {
            gone = nodes.forgetUnseen(Math.max(1, nodeKeep.toSeconds()));
            if (gone > 0) {
                deleted.accept("nodes", gone);
            }
        }
        if (runs + jobs + gone > 0) {
            LOG.info("retention: deleted {} run(s) and {} job(s) finished more than {} ago, and {} node row(s) unseen "
                    + "for {}", runs, jobs, keep, gone, nodeKeep);
        }
        return new Sweep(runs, jobs, gone);
    }

    /**
     * Refreshes the planner's statistics of the tables where the database does not (only when this node leads):
     * see {@link Retention#refreshStatistics()}. Returns the tables refreshed.
     */
    public java.util.List<String> refreshStatisticsOnce() {
        if (!election.isLeader()) {
            return java.util.List.of();
        }
        java.util.List<String> refreshed = retention.refreshStatistics();
        if (!refreshed.isEmpty()) {
            LOG.info("statistics: analyzed {} (autovacuum is off on this database, so the leader does it)", refreshed);
        }
        return refreshed;
    }

    private int sweep(String what, java.util.function.IntSupplier deleteBatch) {
        int total = 0;
        for (int round = 0; round < MAX_BATCHES_PER_PASS && election.isLeader(); round++) {
            if (round > 0 && !pauseBetweenBatches()) {
                break;
            }
            int n = deleteBatch.getAsInt();
            if (n > 0) {
                deleted.accept(what, n);
            }
            total += n;
            if (n < batch) {
                break;
            }
        }
        return total;
    }

    /** False when interrupted (the node is stopping). */
    private boolean pauseBetweenBatches() {
        if (pause.isZero()) {
            return !Thread.currentThread().isInterrupted();
        }
        try {
            Thread.sleep(pause.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Duration requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
        return d;
    }

    /** What one pass deleted. */
    public record Sweep(int runs, int jobs, int nodes) {
    }
}
