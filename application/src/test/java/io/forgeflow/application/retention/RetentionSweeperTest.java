package io.forgeflow.application.retention;

import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.Retention;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetentionSweeperTest {
    static final Duration KEEP = Duration.ofDays(14);
    static final Duration NODE_KEEP = Duration.ofSeconds(100);

    final BacklogRetention retention = new BacklogRetention();
    final Nodes nodes = new Nodes();
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final List<String> deleted = new ArrayList<>();
    final RetentionSweeper sweeper = new RetentionSweeper(retention, nodes, election, KEEP, NODE_KEEP, Duration.ZERO,
            10, (what, n) -> deleted.add(what + ":" + n));

    @Test
    void deletesTheBacklogInBatchesUntilABatchComesBackShort() {
        retention.runs = 25;
        retention.jobs = 3;

        RetentionSweeper.Sweep sweep = sweeper.runOnce();

        assertThat(sweep).isEqualTo(new RetentionSweeper.Sweep(25, 3, 0));
        assertThat(retention.calls).containsExactly("history 60m/10", "drop 14d", "runs 14d/10", "runs 14d/10",
                "runs 14d/10", "jobs 14d/10");
        assertThat(deleted).containsExactly("runs:10", "runs:10", "runs:5", "jobs:3");
    }

    @Test
    void finishedRunsMoveToHistoryInBatchesThenOldDaysAreDroppedThenTheRestIsDeleted() {
        retention.history = 15;
        retention.days = List.of("20250101");
        retention.runs = 2;

        RetentionSweeper.Sweep sweep = sweeper.runOnce();

        assertThat(sweep).isEqualTo(new RetentionSweeper.Sweep(2, 0, 0));
        assertThat(retention.calls).containsExactly("history 60m/10", "history 60m/10", "drop 14d", "runs 14d/10",
                "jobs 14d/10");
        assertThat(deleted).containsExactly("history:10", "history:5", "history_days:1", "runs:2");
    }

    @Test
    void aHistoryAfterNotShorterThanTheRetentionMovesNothing() {
        retention.history = 5;
        RetentionSweeper late = new RetentionSweeper(retention, nodes, election, KEEP, NODE_KEEP, Duration.ZERO, 10,
                KEEP, null);

        late.runOnce();

        assertThat(retention.calls).doesNotContain("history 20160m/10").contains("drop 14d");
        assertThat(retention.history).isEqualTo(5);
    }

    @Test
    void aLeaderThatLosesTheLeadWhileMovingDropsNothing() {
        retention.history = 5;
        retention.days = List.of("20250101");
        retention.onCall = () -> election.setLeader(false);

        sweeper.runOnce();

        assertThat(retention.calls).containsExactly("history 60m/10");
        assertThat(deleted).containsExactly("history:5");
    }

    @Test
    void aStandbyNeitherMovesNorDrops() {
        retention.history = 5;
        election.setLeader(false);

        sweeper.runOnce();

        assertThat(retention.calls).isEmpty();
    }

    @Test
    void anExactMultipleOfTheBatchTakesOneMoreEmptyBatch() {
        retention.runs = 20;

        assertThat(sweeper.runOnce().runs()).isEqualTo(20);

        assertThat(retention.calls).containsExactly("history 60m/10", "drop 14d", "runs 14d/10", "runs 14d/10",
                "runs 14d/10", "jobs 14d/10");
    }

    @Test
    void aPassStopsAfterTheBatchLimitAndTheNextPassContinues() {
        retention.runs = 10 * RetentionSweeper.MAX_BATCHES_PER_PASS + 7;

        assertThat(sweeper.runOnce().runs()).isEqualTo(10 * RetentionSweeper.MAX_BATCHES_PER_PASS);
        assertThat(sweeper.runOnce().runs()).isEqualTo(7);
    }

    @Test
    void theLeaderRefreshesStaleStatisticsAndSaysWhichTables() {
        retention.stale = List.of("jobs", "runs");

        assertThat(sweeper.refreshStatisticsOnce()).containsExactly("jobs", "runs");
        assertThat(retention.calls).containsExactly("statistics");
    }

    @Test
    void aFollowerLeavesTheStatisticsToTheLeader() {
        retention.stale = List.of("runs");
        election.setLeader(false);

        assertThat(sweeper.refreshStatisticsOnce()).isEmpty();
        assertThat(retention.calls).isEmpty();
    }

    @Test
    void theDefaultRetentionRefreshesNothing() {
        Retention plain = new Retention() {
            @Override
            public int deleteFinishedRuns(Duration olderThan, int limit) {
                return 0;
            }

            @Override
            public int deleteFinishedJobs(Duration olderThan, int limit) {
                return 0;
            }
        };
        assertThat(plain.refreshStatistics()).isEmpty();
    }

    @Test
    void forgetsNodesUnseenForTheNodeKeepTime() {
        nodes.gone = 2;

        assertThat(sweeper.runOnce().nodes()).isEqualTo(2);

        assertThat(nodes.askedFor).containsExactly(100L);
        assertThat(deleted).containsExactly("nodes:2");
    }

    @Test
    void aStandbyDeletesNothing() {
        election.setLeader(false);
        retention.runs = 5;
        nodes.gone = 1;

        assertThat(sweeper.runOnce()).isEqualTo(new RetentionSweeper.Sweep(0, 0, 0));

        assertThat(retention.calls).isEmpty();
        assertThat(nodes.askedFor).isEmpty();
    }

    @Test
    void aLeaderThatLosesTheLeadStopsBetweenBatches() {
        retention.runs = 100;
        retention.onCall = () -> { // during the first delete of runs
            if (retention.calls.get(retention.calls.size() - 1).startsWith("runs")) {
                election.setLeader(false);
            }
        };

        assertThat(sweeper.runOnce().runs()).isEqualTo(10);
        assertThat(retention.calls).containsExactly("history 60m/10", "drop 14d", "runs 14d/10");
    }

    @Test
    void theRetentionMustBePositive() {
        assertThatThrownBy(() -> new RetentionSweeper(retention, nodes, election, Duration.ZERO, NODE_KEEP,
                Duration.ZERO, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keep");
    }

    /** A backlog of deletable rows, handed out a batch at a time. */
    static final class BacklogRetention implements Retention {
        int runs;
        int jobs;
        Runnable onCall = () -> { };
        final List<String> calls = new ArrayList<>();

        @Override
        public int deleteFinishedRuns(Duration olderThan, int limit) {
            calls.add("runs " + olderThan.toDays() + "d/" + limit);
            onCall.run();
            int n = Math.min(limit, runs);
            runs -= n;
            return n;
        }

        List<String> stale = List.of();

        @Override
        public List<String> refreshStatistics() {
            calls.add("statistics");
            return stale;
        }

        int history;
        List<String> days = List.of();

        @Override
        public int moveToHistory(Duration after, Duration keep, int limit) {
            calls.add("history " + after.toMinutes() + "m/" + limit);
            onCall.run();
            int n = Math.min(limit, history);
            history -= n;
            return n;
        }

        @Override
        public List<String> dropHistory(Duration keep) {
            calls.add("drop " + keep.toDays() + "d");
            return days;
        }

        @Override
        public int deleteFinishedJobs(Duration olderThan, int limit) {
            calls.add("jobs " + olderThan.toDays() + "d/" + limit);
            int n = Math.min(limit, jobs);
            jobs -= n;
            return n;
        }
    }

    static final class Nodes implements NodeRegistry {
        int gone;
        final List<Long> askedFor = new ArrayList<>();

        @Override
        public void heartbeat(NodeInfo node) {
        }

        @Override
        public void remove(String workerId) {
        }

        @Override
        public List<NodeStatus> list(long liveWindowSeconds) {
            return List.of();
        }

        @Override
        public int forgetUnseen(long unseenForSeconds) {
            askedFor.add(unseenForSeconds);
            int n = gone;
            gone = 0;
            return n;
        }
    }
}
