package io.forgeflow.application.testkit;

import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.run.RunStatus;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/** {@link NodeRegistry} over an {@link InMemoryStore}: last seen is the store's clock; running counts its runs. */
public final class InMemoryNodeRegistry implements NodeRegistry {
    private final InMemoryStore store;

    InMemoryNodeRegistry(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public void heartbeat(NodeInfo node) {
        synchronized (store) {
            store.nodes.put(node.workerId(), new InMemoryStore.NodeRow(node, store.now()));
        }
    }

    @Override
    public void remove(String workerId) {
        synchronized (store) {
            store.nodes.remove(workerId);
        }
    }

    /** Ordered by worker id. */
    @Override
    public List<NodeStatus> list(long liveWindowSeconds) {
        synchronized (store) {
            Instant since = store.now().minusSeconds(liveWindowSeconds);
            return store.nodes.values().stream()
                    .filter(row -> !row.lastSeenAt().isBefore(since))
                    .map(row -> new NodeStatus(row.info(), row.lastSeenAt(), store.runs.values().stream()
                            .filter(r -> r.status() == RunStatus.RUNNING && row.info().workerId().equals(r.workerId()))
                            .count()))
                    .collect(Collectors.toList());
        }
    }
}
