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

    /**
     * Nodes seen within {@code keepWindowSeconds}, each {@linkplain NodeStatus#live() live} when seen within
     * {@code liveWindowSeconds} (gone otherwise), with the number of runs each holds. By default only the live ones.
     */
    default List<NodeStatus> list(long liveWindowSeconds, long keepWindowSeconds) {
        return list(liveWindowSeconds);
    }

    /**
     * Deletes the rows of nodes not seen for more than {@code unseenForSeconds} (nodes that died without removing
     * their row). Returns how many were deleted. By default keeps everything.
     */
    default int forgetUnseen(long unseenForSeconds) {
        return 0;
    }

    /**
     * What a node says of itself.
     *
     * @param containment how it contains its shell jobs' processes ({@code pid-namespace}, {@code process-group},
     *                    {@code none}), or null when it does not say (no shell executor, an embedded worker)
     * @param jobUser     the OS user its shell jobs run as, or null: the node's own
     * @param pooling     how its pool reaches PostgreSQL: {@code direct}, or {@code transaction} behind a transaction
     *                    pooler (PgBouncer); null when it does not say
     * @param wakeUps     how it learns runs became due: {@code notify} (LISTEN) or {@code polling}; null: not said
     * @param leadership  how its scheduler campaigns: {@code advisory_lock} or {@code lease}; null: not said or no
     *                    scheduler role
     * @param leaderTerm  the lease term it leads in ({@code lease} leadership), null otherwise
     * @param connections its database connections at its last heartbeat; null: not said
     */
    record NodeInfo(String workerId, Set<String> roles, String version, Instant startedAt, boolean leader,
                    String containment, String jobUser, String grpcAddress, String pooling, String wakeUps,
                    String leadership, Long leaderTerm, Connections connections) {
        public NodeInfo {
            roles = Set.copyOf(roles);
        }

        /** A node that does not say how it is woken and elected, nor its connections. */
        public NodeInfo(String workerId, Set<String> roles, String version, Instant startedAt, boolean leader,
                        String containment, String jobUser, String grpcAddress, String pooling) {
            this(workerId, roles, version, startedAt, leader, containment, jobUser, grpcAddress, pooling, null, null,
                    null, null);
        }

        /** A node that does not say how it reaches the database. */
        public NodeInfo(String workerId, Set<String> roles, String version, Instant startedAt, boolean leader,
                        String containment, String jobUser, String grpcAddress) {
            this(workerId, roles, version, startedAt, leader, containment, jobUser, grpcAddress, null);
        }

        /** A node without the gRPC API. */
        public NodeInfo(String workerId, Set<String> roles, String version, Instant startedAt, boolean leader,
                        String containment, String jobUser) {
            this(workerId, roles, version, startedAt, leader, containment, jobUser, null, null);
        }

        /** A node that says nothing of its jobs' containment. */
        public NodeInfo(String workerId, Set<String> roles, String version, Instant startedAt, boolean leader) {
            this(workerId, roles, version, startedAt, leader, null, null, null, null);
        }
    }

    /**
     * A node's database connections.
     *
     * @param poolMax   the most its pool opens
     * @param poolInUse pool connections borrowed at that moment
     * @param sessions  connections of its own that hold session state, directly to PostgreSQL (LISTEN, the leader's
     *                  advisory lock), open at that moment
     */
    record Connections(int poolMax, int poolInUse, int sessions) {
    }

    /**
     * A node as the cluster sees it.
     *
     * @param live whether it heartbeated recently (within three heartbeats); false: it is gone (crashed, or cut off)
     */
    record NodeStatus(NodeInfo info, Instant lastSeenAt, long running, boolean live) {

        /** A live node. */
        public NodeStatus(NodeInfo info, Instant lastSeenAt, long running) {
            this(info, lastSeenAt, running, true);
        }
    }
}
