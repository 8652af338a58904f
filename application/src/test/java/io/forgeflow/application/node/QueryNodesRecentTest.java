package io.forgeflow.application.node;

import io.forgeflow.domain.port.NodeRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class QueryNodesRecentTest {

    @Test
    void theKeepWindowIsTenHeartbeatsAndAlwaysLongerThanTheLiveWindow() {
        assertThat(QueryNodes.liveWindowSeconds(Duration.ofSeconds(10))).isEqualTo(30);
        assertThat(QueryNodes.keepWindowSeconds(Duration.ofSeconds(10))).isEqualTo(100);
        assertThat(QueryNodes.liveWindowSeconds(Duration.ofMillis(100))).isEqualTo(1);
        assertThat(QueryNodes.keepWindowSeconds(Duration.ofMillis(100))).isEqualTo(2);
    }

    @Test
    void recentAsksTheRegistryForLiveAndRecentlyGoneNodes() {
        NodeRegistry.NodeStatus gone = new NodeRegistry.NodeStatus(
                new NodeRegistry.NodeInfo("w2", Set.of("worker"), "1.0", Instant.EPOCH, false), Instant.EPOCH, 0, false);
        List<String> asked = new ArrayList<>();
        NodeRegistry registry = new NodeRegistry() {
            @Override
            public void heartbeat(NodeInfo node) {
            }

            @Override
            public void remove(String workerId) {
            }

            @Override
            public List<NodeStatus> list(long liveWindowSeconds) {
                asked.add("live " + liveWindowSeconds);
                return List.of();
            }

            @Override
            public List<NodeStatus> list(long liveWindowSeconds, long keepWindowSeconds) {
                asked.add("live " + liveWindowSeconds + ", keep " + keepWindowSeconds);
                return List.of(gone);
            }
        };

        assertThat(new QueryNodes(registry, Duration.ofSeconds(10)).recent()).containsExactly(gone);
        assertThat(asked).containsExactly("live 30, keep 100");
    }
}
