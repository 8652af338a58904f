package io.forgeflow.application.retention;

import io.forgeflow.application.testkit.Await;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.port.Retention;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class RetentionRoleTest {

    /** Nothing to delete; records each call (from two loops at once). */
    static final class Calls implements Retention {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public int deleteFinishedRuns(Duration olderThan, int limit) {
            calls.add("runs");
            return 0;
        }

        @Override
        public int deleteFinishedJobs(Duration olderThan, int limit) {
            calls.add("jobs");
            return 0;
        }

        @Override
        public List<String> refreshStatistics() {
            calls.add("statistics");
            return List.of();
        }
    }

    @Test
    void theSweepsAndTheStatisticsChecksRunUntilStopped() {
        Calls retention = new Calls();
        RetentionSweeper sweeper = new RetentionSweeper(retention, null, FakeLeaderElection.leading(),
                Duration.ofDays(14), Duration.ofMinutes(5), Duration.ZERO, null);
        RetentionRole role = new RetentionRole(sweeper, Duration.ofMillis(20), Duration.ofMillis(20));

        role.start();
        Await.until("a sweep and a statistics check ran",
                () -> retention.calls.contains("runs") && retention.calls.contains("statistics"));
        role.stop();

        assertThat(retention.calls).isNotEmpty();
        assertThat(alive("ff-retention")).as("the sweeps' loop ended").isFalse();
        assertThat(alive("ff-statistics")).as("the statistics loop ended").isFalse();
    }

    /** Whether a thread of this name is alive (the roles' loops are joined when stopped). */
    static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
    }
}
