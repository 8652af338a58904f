package io.forgeflow.application.node;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class QueryNodesTest {
    final Scenario s = new Scenario();

    void beat(String workerId) {
        s.store.nodes().heartbeat(new NodeInfo(workerId, Set.of("worker"), "1.0", s.clock.instant(), false));
    }

    @Test
    void liveNodesAreThoseSeenWithinThreeHeartbeatIntervals() {
        QueryNodes query = new QueryNodes(s.store.nodes(), Duration.ofSeconds(10));
        beat("gone");
        s.advance(Duration.ofSeconds(1));
        beat("late");
        s.advance(Duration.ofSeconds(30));

        assertThat(query.live()).extracting(n -> n.info().workerId()).containsExactly("late");
    }

    @Test
    void aSubSecondHeartbeatStillGivesAOneSecondWindow() {
        QueryNodes query = new QueryNodes(s.store.nodes(), Duration.ofMillis(100));
        beat("fast");
        s.advance(Duration.ofSeconds(1));

        assertThat(query.live()).hasSize(1);
        s.advance(Duration.ofMillis(1));
        assertThat(query.live()).isEmpty();
    }

    @Test
    void eachNodeCountsTheRunsItHolds() {
        QueryNodes query = new QueryNodes(s.store.nodes(), Duration.ofSeconds(10));
        beat("w1");
        beat("w2");
        s.submit(aDraft());
        s.submit(aDraft());
        Run held = s.claim("w1");
        s.claim("w1");

        assertThat(query.live()).extracting(n -> n.info().workerId(), NodeStatus::running)
                .containsExactly(tuple("w1", 2L), tuple("w2", 0L));
        assertThat(held.workerId()).isEqualTo("w1");
    }
}
