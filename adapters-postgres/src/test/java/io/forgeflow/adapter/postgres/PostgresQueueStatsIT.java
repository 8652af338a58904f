package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.port.QueueStats.Snapshot;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;

class PostgresQueueStatsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresQueueStats stats = new PostgresQueueStats(pg.jdbi(), clock);

    @Test
    void anEmptyQueueHasZeroDepthInEveryStatusAndNoLag() {
        Snapshot snapshot = stats.snapshot();

        assertThat(snapshot.depth()).containsOnlyKeys(RunStatus.values()).allSatisfy((s, n) -> assertThat(n).isZero());
        assertThat(snapshot.lag()).isZero();
    }

    @Test
    void countsRunsPerStatus() {
        pg.insert(aRun().dueAt(now));
        pg.insert(aRun().dueAt(now.plusSeconds(60)));
        pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)));
        pg.insert(aRun().dueAt(now).succeeded());
        pg.insert(aRun().dueAt(now).succeeded());
        pg.insert(aRun().dueAt(now).succeeded());
        pg.insert(aRun().dueAt(now).dead());

        assertThat(stats.snapshot().depth()).isEqualTo(Map.of(RunStatus.WAITING, 0L, RunStatus.PENDING, 2L, RunStatus.RUNNING, 1L,
                RunStatus.SUCCEEDED, 3L, RunStatus.DEAD, 1L, RunStatus.CANCELLED, 0L));
    }

    @Test
    void lagIsTheAgeOfTheOldestDuePendingRunWhateverItsPriority() {
        pg.insert(aRun().withPriority(1).dueAt(now.minusSeconds(5)));
        pg.insert(aRun().withPriority(9).dueAt(now.minusSeconds(42)));
        pg.insert(aRun().withPriority(5).dueAt(now.plusSeconds(600)));
        pg.insert(aRun().dueAt(now.minusSeconds(3600)).dead());

        assertThat(stats.snapshot().lag()).isEqualTo(Duration.ofSeconds(42));
    }

    @Test
    void liveRunsAreCountedForEachTenantButDefault() {
        pg.insert(aRun().dueAt(now));
        pg.insert(aRun().dueAt(now));
        pg.insert(aRun().dueAt(now.plusSeconds(60)));
        pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)));
        pg.insert(aRun().dueAt(now).succeeded());
        pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET tenant = 'acme' WHERE id IN (SELECT id FROM runs "
                + "WHERE status = 'pending' ORDER BY scheduled_for DESC LIMIT 2) OR status IN ('running', 'succeeded')"));

        Snapshot snapshot = stats.snapshot();

        assertThat(snapshot.tenants()).containsOnlyKeys("acme");
        assertThat(snapshot.tenants().get("acme")).isEqualTo(new io.forgeflow.domain.port.QueueStats.TenantLoad(2, 1));
        assertThat(snapshot.depth().get(RunStatus.PENDING)).isEqualTo(3);
    }

    @Test
    void noTenantButDefaultIsNoTenantLoad() {
        pg.insert(aRun().dueAt(now));

        assertThat(stats.snapshot().tenants()).isEmpty();
    }

    @Test
    void pendingRunsThatAreNotDueYetAreNoLag() {
        pg.insert(aRun().dueAt(now.plusSeconds(10)));

        assertThat(stats.snapshot().lag()).isZero();
    }
}
