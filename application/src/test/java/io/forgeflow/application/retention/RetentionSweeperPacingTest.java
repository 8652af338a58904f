package io.forgeflow.application.retention;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.forgeflow.application.retention.RetentionSweeperTest.BacklogRetention;
import io.forgeflow.application.retention.RetentionSweeperTest.Nodes;
import io.forgeflow.application.testkit.FakeLeaderElection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Batch sizes, the pause between batches, a stopping node, and the one log line a pass writes. */
class RetentionSweeperPacingTest {
    static final Duration KEEP = Duration.ofDays(14);
    static final Duration NODE_KEEP = Duration.ofSeconds(100);

    final BacklogRetention retention = new BacklogRetention();
    final Nodes nodes = new Nodes();
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final ListAppender<ILoggingEvent> log = new ListAppender<>();
    final Logger logger = (Logger) LoggerFactory.getLogger(RetentionSweeper.class);

    RetentionSweeperPacingTest() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void cleanUp() {
        logger.detachAppender(log);
        Thread.interrupted(); // never leave the interrupt flag to the next test
    }

    RetentionSweeper sweeper(Duration pause, int batch) {
        return new RetentionSweeper(retention, nodes, election, KEEP, NODE_KEEP, pause, batch, null);
    }

    @Test
    void aBatchOfOneRowIsTheSmallestAllowed() {
        retention.runs = 3;
        assertThat(sweeper(Duration.ZERO, 1).runOnce().runs()).isEqualTo(3);
        assertThat(retention.calls).containsExactly("history 60m/1", "drop 14d", "runs 14d/1", "runs 14d/1",
                "runs 14d/1", "runs 14d/1", "jobs 14d/1");
        assertThatThrownBy(() -> sweeper(Duration.ZERO, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batch must be at least 1, was 0");
    }

    @Test
    void aMissingOrNegativePauseMeansNoPause() {
        retention.runs = 25;
        assertThat(sweeper(null, 10).runOnce().runs()).isEqualTo(25);
        retention.runs = 25;
        assertThat(sweeper(Duration.ofMillis(-5), 10).runOnce().runs()).isEqualTo(25);
    }

    @Test
    void batchesArePausedBetweenButNotBeforeTheFirst() {
        retention.runs = 25;
        long began = System.nanoTime();

        assertThat(sweeper(Duration.ofMillis(50), 10).runOnce().runs()).isEqualTo(25);

        // three batches of runs: two pauses; one batch of jobs: none
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aStoppingNodeFinishesTheBatchInHandAndKeepsItsInterruptFlag() {
        retention.runs = 25;
        retention.jobs = 25;
        Thread.currentThread().interrupt();

        RetentionSweeper.Sweep sweep = sweeper(Duration.ZERO, 10).runOnce();

        assertThat(Thread.interrupted()).as("interrupt flag kept").isTrue();
        assertThat(sweep.runs()).isEqualTo(10);
        assertThat(sweep.jobs()).isEqualTo(10);
    }

    @Test
    void aStoppingNodeInterruptedDuringThePauseStopsToo() {
        retention.runs = 25;
        Thread.currentThread().interrupt();

        RetentionSweeper.Sweep sweep = sweeper(Duration.ofSeconds(1), 10).runOnce();

        assertThat(Thread.interrupted()).as("interrupt flag restored").isTrue();
        assertThat(sweep.runs()).isEqualTo(10);
    }

    @Test
    void aPassThatDeletedAnythingSaysSoInOneLineAndAnEmptyPassIsSilent() {
        RetentionSweeper sweeper = sweeper(Duration.ZERO, 10);

        sweeper.runOnce();
        assertThat(log.list).isEmpty();

        retention.jobs = 3;
        sweeper.runOnce();
        assertThat(log.list).singleElement().extracting(ILoggingEvent::getFormattedMessage).asString()
                .startsWith("retention: deleted 0 run(s) and 3 job(s) finished more than");

        nodes.gone = 2;
        sweeper.runOnce();
        assertThat(log.list).hasSize(2);
        assertThat(log.list.get(1).getFormattedMessage()).contains("and 2 node row(s) unseen");
    }
}
