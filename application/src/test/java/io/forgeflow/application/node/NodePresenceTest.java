package io.forgeflow.application.node;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class NodePresenceTest {
    final Scenario s = new Scenario();
    final NodeInfo self = new NodeInfo("app-1", Set.of("embedded", "worker"), "1.0", Scenario.START, false);

    @Test
    void eachBeatWritesWhatTheNodeSaysOfItselfAndStopRemovesTheRow() {
        NodePresence presence = new NodePresence(s.store.nodes(), () -> self, Duration.ofSeconds(10));

        presence.runOnce();
        assertThat(s.store.nodes().list(30)).extracting(n -> n.info().workerId()).containsExactly("app-1");
        assertThat(s.store.nodes().list(30).get(0).info().roles()).containsExactlyInAnyOrder("embedded", "worker");
        presence.stop();
        assertThat(s.store.nodes().list(30)).isEmpty();
    }

    @Test
    void theLoopBeatsUntilStopped() {
        NodePresence presence = new NodePresence(s.store.nodes(), () -> self, Duration.ofMillis(20));
        presence.start();
        Await.until("the row is written", () -> !s.store.nodes().list(30).isEmpty());
        presence.stop();
        assertThat(alive("ff-node-heartbeat")).as("the loop ended").isFalse();

        assertThat(s.store.nodes().list(30)).isEmpty();
    }

    @Test
    void aRowThatCannotBeRemovedIsLeftToGoStale() {
        List<String> removals = new ArrayList<>();
        NodeRegistry failing = new NodeRegistry() {
            @Override
            public void heartbeat(NodeInfo node) {
            }

            @Override
            public void remove(String workerId) {
                removals.add(workerId);
                throw new IllegalStateException("database down");
            }

            @Override
            public List<NodeStatus> list(long liveWindowSeconds) {
                return List.of();
            }
        };

        new NodePresence(failing, () -> self, Duration.ofSeconds(10)).stop();

        assertThat(removals).containsExactly("app-1");
    }

    @Test
    void aDefaultWorkerIdNamesTheHostThePidAndFourHexDigitsAtMost() {
        String id = NodePresence.defaultWorkerId();
        String pid = Long.toString(ProcessHandle.current().pid());

        assertThat(id).contains("-" + pid + "-").matches(".+-" + pid + "-[0-9a-f]{1,4}");
    }

    /** Whether a thread of this name is alive (the roles' loops are joined when stopped). */
    static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
    }
}
