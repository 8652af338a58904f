package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.NodeRegistry;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * The cluster's nodes on PostgreSQL ({@link NodeRegistry}): each node upserts its own row in {@code nodes};
 * {@code last_seen_at} is the database clock, so a node with a skewed clock still looks alive (or dead) correctly.
 */
public final class PostgresNodeRegistry implements NodeRegistry {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresNodeRegistry(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public void heartbeat(NodeInfo node) {
        Objects.requireNonNull(node, "node");
        String[] roles = node.roles().stream().sorted().toArray(String[]::new);
        Connections c = node.connections();
        jdbi.useExtension(NodeSql.class, sql -> sql.heartbeat(node.workerId(), roles, node.version(), node.startedAt(),
                node.leader(), node.containment(), node.jobUser(), node.grpcAddress(), node.pooling(), node.wakeUps(),
                node.leadership(), node.leaderTerm(), c == null ? null : c.poolMax(), c == null ? null : c.poolInUse(),
                c == null ? null : c.sessions(), clock.now()));
    }

    @Override
    public void remove(String workerId) {
        Objects.requireNonNull(workerId, "workerId");
        jdbi.useExtension(NodeSql.class, sql -> sql.remove(workerId));
    }

    @Override
    public List<NodeStatus> list(long liveWindowSeconds) {
        return list(liveWindowSeconds, liveWindowSeconds);
    }

    @Override
    public List<NodeStatus> list(long liveWindowSeconds, long keepWindowSeconds) {
        if (liveWindowSeconds < 0) {
            throw new IllegalArgumentException("liveWindowSeconds must not be negative, was " + liveWindowSeconds);
        }
        if (keepWindowSeconds < liveWindowSeconds) {
            throw new IllegalArgumentException("keepWindowSeconds (" + keepWindowSeconds
                    + ") must not be shorter than liveWindowSeconds (" + liveWindowSeconds + ")");
        }
        return jdbi.withExtension(NodeSql.class, sql -> sql.list(liveWindowSeconds, keepWindowSeconds, clock.now()));
    }

    @Override
    public int forgetUnseen(long unseenForSeconds) {
        if (unseenForSeconds < 1) {
            throw new IllegalArgumentException("unseenForSeconds must be at least 1, was " + unseenForSeconds);
        }
        return jdbi.withExtension(NodeSql.class, sql -> sql.forgetUnseen(unseenForSeconds, clock.now()));
    }
}
