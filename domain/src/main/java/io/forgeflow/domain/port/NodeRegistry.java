package io.forgeflow.domain.port;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/** The nodes of the cluster, each heartbeating its row. */
public interface NodeRegistry {

    /** Inserts or refreshes this node's row (last seen = database now). */
    void heartbeat(NodeInfo node);

    /** Removes this node's row (clean shutdown). */
    void remove(String workerId);

    /** Nodes seen within {@code liveWindowSeconds}, with the number of runs each holds. */
    List<NodeStatus> list(long liveWindowSeconds);

    /** What a node says of itself. */
    record NodeInfo(String workerId, Set<String> roles, String version, Instant startedAt, boolean leader) {
        public NodeInfo {
            roles = Set.copyOf(roles);
        }
    }

    /** A node as the cluster sees it. */
    record NodeStatus(NodeInfo info, Instant lastSeenAt, long running) {
    }
}
