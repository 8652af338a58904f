package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** Nodes that stopped heartbeating: listed as gone for a while, then left out, and finally deleted by the leader. */
class PostgresNodeStatusIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant started = clock.instant();
    final PostgresNodeRegistry nodes = new PostgresNodeRegistry(pg.jdbi(), clock);

    @Test
    void aNodeUnseenForLongerThanTheLiveWindowIsListedAsGoneUntilTheKeepWindowEnds() {
        nodes.heartbeat(new NodeInfo("crashed", Set.of("worker"), "0.1.0", started, false));
        clock.advance(Duration.ofSeconds(31));
        nodes.heartbeat(new NodeInfo("alive", Set.of("api"), "0.1.0", started, false));

        assertThat(nodes.list(30, 100)).extracting(s -> s.info().workerId(), NodeStatus::live)
                .containsExactly(tuple("alive", true), tuple("crashed", false));
        assertThat(nodes.list(30)).extracting(s -> s.info().workerId()).containsExactly("alive");

        clock.advance(Duration.ofSeconds(70));
        assertThat(nodes.list(30, 100)).extracting(s -> s.info().workerId(), NodeStatus::live)
                .containsExactly(tuple("alive", false));
    }

    @Test
    void aGoneNodeThatHeartbeatsAgainIsLiveAgain() {
        nodes.heartbeat(new NodeInfo("flaky", Set.of("worker"), "0.1.0", started, false));
        clock.advance(Duration.ofSeconds(40));
        assertThat(nodes.list(30, 100)).singleElement().extracting(NodeStatus::live).isEqualTo(false);

        nodes.heartbeat(new NodeInfo("flaky", Set.of("worker"), "0.1.0", started, false));

        assertThat(nodes.list(30, 100)).singleElement().extracting(NodeStatus::live).isEqualTo(true);
    }

    @Test
    void forgetUnseenDeletesOnlyTheRowsOfNodesUnseenForLongerThanTheGivenTime() {
        nodes.heartbeat(new NodeInfo("long-gone", Set.of("worker"), "0.1.0", started, false));
        clock.advance(Duration.ofSeconds(50));
        nodes.heartbeat(new NodeInfo("recently-gone", Set.of("worker"), "0.1.0", started, false));
        clock.advance(Duration.ofSeconds(60));
        nodes.heartbeat(new NodeInfo("alive", Set.of("worker"), "0.1.0", started, false));

        assertThat(nodes.forgetUnseen(100)).isEqualTo(1);

        assertThat(nodes.list(1000, 1000)).extracting(s -> s.info().workerId())
                .containsExactly("alive", "recently-gone");
    }
}
