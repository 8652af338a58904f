package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;

class PostgresNodeRegistryIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant started = clock.instant();
    final PostgresNodeRegistry nodes = new PostgresNodeRegistry(pg.jdbi(), clock);

    @Test
    void aHeartbeatRegistersTheNodeAndListsItWithTheRunsItHolds() {
        NodeInfo info = new NodeInfo("node-a", Set.of("api", "worker", "scheduler"), "0.1.0", started, true);
        pg.insert(aRun().running().leasedBy("node-a").leaseUntil(started.plusSeconds(30)));
        pg.insert(aRun().running().leasedBy("node-a").leaseUntil(started.plusSeconds(30)));
        pg.insert(aRun().running().leasedBy("node-b").leaseUntil(started.plusSeconds(30)));

        nodes.heartbeat(info);

        assertThat(nodes.list(30)).containsExactly(new NodeStatus(info, started, 2));
    }

    @Test
    void aHeartbeatCarriesHowTheNodeIsWokenAndElectedAndItsConnections() {
        NodeInfo info = new NodeInfo("node-a", Set.of("scheduler", "worker"), "0.1.0", started, true, null, null, null,
                "transaction", "polling", "lease", 7L, new io.forgeflow.domain.port.NodeRegistry.Connections(16, 3, 0));

        nodes.heartbeat(info);
        assertThat(nodes.list(30)).containsExactly(new NodeStatus(info, started, 0));

        NodeInfo standby = new NodeInfo("node-a", Set.of("scheduler", "worker"), "0.1.0", started, false, null, null,
                null, "transaction", "polling", "lease", null, new io.forgeflow.domain.port.NodeRegistry.Connections(16, 0, 0));
        nodes.heartbeat(standby);
        assertThat(nodes.list(30)).containsExactly(new NodeStatus(standby, started, 0));
    }

    @Test
    void aLaterHeartbeatRefreshesTheRow() {
        nodes.heartbeat(new NodeInfo("node-a", Set.of("worker"), "0.1.0", started, false));
        clock.advance(Duration.ofSeconds(10));
        NodeInfo leading = new NodeInfo("node-a", Set.of("worker", "scheduler"), "0.1.0", started, true);

        nodes.heartbeat(leading);

        assertThat(nodes.list(30)).containsExactly(new NodeStatus(leading, clock.instant(), 0));
    }

    @Test
    void nodesNotSeenWithinTheWindowAreLeftOut() {
        nodes.heartbeat(new NodeInfo("gone", Set.of("worker"), "0.1.0", started, false));
        clock.advance(Duration.ofSeconds(31));
        NodeInfo alive = new NodeInfo("alive", Set.of("api"), "0.1.0", started, false);
        nodes.heartbeat(alive);

        assertThat(nodes.list(30)).extracting(s -> s.info().workerId()).containsExactly("alive");
        assertThat(nodes.list(60)).extracting(s -> s.info().workerId()).containsExactly("alive", "gone");
    }

    @Test
    void aRemovedNodeIsNoLongerListed() {
        nodes.heartbeat(new NodeInfo("node-a", Set.of("worker"), "0.1.0", started, false));

        nodes.remove("node-a");

        assertThat(nodes.list(30)).isEmpty();
    }

    @Test
    void withoutATestClockLastSeenIsTheDatabaseClock() {
        PostgresNodeRegistry production = new PostgresNodeRegistry(pg.jdbi(), null);
        production.heartbeat(new NodeInfo("node-a", Set.of("worker"), "0.1.0", Instant.now(), false));

        assertThat(production.list(30)).singleElement().satisfies(status ->
                assertThat(status.lastSeenAt()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60)));
    }
}
