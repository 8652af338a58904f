package io.forgeflow.application.node;

import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;

import java.time.Duration;
import java.util.List;

/** Lists the live nodes of the cluster: those seen within three heartbeats. */
public final class QueryNodes {
    private final NodeRegistry nodes;
    private final Duration heartbeatInterval;

    public QueryNodes(NodeRegistry nodes, Duration heartbeatInterval) {
        this.nodes = nodes;
        this.heartbeatInterval = heartbeatInterval;
    }

    public List<NodeStatus> live() {
        return nodes.list(Math.max(1, heartbeatInterval.multipliedBy(3).toSeconds()));
    }
}
