package io.forgeflow.application.node;

import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;

import java.time.Duration;
import java.util.List;

/**
 * Lists the nodes of the cluster. A node is live while it was seen within three heartbeats; a node unseen for
 * longer is gone (crashed or cut off) and is still listed, as gone, until it has been unseen for ten heartbeats.
 */
public final class QueryNodes {
    /** Heartbeats a node may miss before it counts as gone. */
    public static final int LIVE_HEARTBEATS = 3;
    /** Heartbeats after which a gone node is no longer listed (and the leader deletes its row). */
    public static final int KEEP_HEARTBEATS = 10;

    private final NodeRegistry nodes;
    private final Duration heartbeatInterval;

    public QueryNodes(NodeRegistry nodes, Duration heartbeatInterval) {
        this.nodes = nodes;
        this.heartbeatInterval = heartbeatInterval;
    }

    /** The live nodes only. */
    public List<NodeStatus> live() {
        return nodes.list(liveWindowSeconds(heartbeatInterval));
    }

    /** Live nodes and those gone within the last ten heartbeats ({@link NodeStatus#live()} tells them apart). */
    public List<NodeStatus> recent() {
        return nodes.list(liveWindowSeconds(heartbeatInterval), keepWindowSeconds(heartbeatInterval));
    }

    /** Three heartbeats, at least one second. */
    public static long liveWindowSeconds(Duration heartbeatInterval) {
        return Math.max(1, heartbeatInterval.multipliedBy(LIVE_HEARTBEATS).toSeconds());
    }

    /** Ten heartbeats, and always longer than the live window. */
    public static long keepWindowSeconds(Duration heartbeatInterval) {
        return Math.max(liveWindowSeconds(heartbeatInterval) + 1, heartbeatInterval.multipliedBy(KEEP_HEARTBEATS).toSeconds());
    }
}
