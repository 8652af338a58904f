package io.forgeflow.application.node;

import io.forgeflow.application.support.PeriodicTask;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * This process's row among the cluster's nodes ({@code GET /api/nodes}): refreshed every heartbeat interval with what
 * {@code self} says (roles, version, whether it leads), removed on a clean stop; a process that dies leaves a row
 * that goes stale. Used by nodes and by embedded workers alike.
 */
public final class NodePresence {
    private static final Logger LOG = LoggerFactory.getLogger(NodePresence.class);

    private final NodeRegistry nodes;
    private final Supplier<NodeInfo> self;
    private final PeriodicTask loop;

    public NodePresence(NodeRegistry nodes, Supplier<NodeInfo> self, Duration interval) {
        this.nodes = Objects.requireNonNull(nodes, "nodes");
        this.self = Objects.requireNonNull(self, "self");
        this.loop = new PeriodicTask("ff-node-heartbeat", interval, this::runOnce);
    }

    /** Refreshes the row once. */
    public void runOnce() {
        nodes.heartbeat(self.get());
    }

    public void start() {
        loop.start();
    }

    /** Stops refreshing and removes the row (a failure to remove is logged: the row then goes stale). */
    public void stop() {
        loop.stop();
        String workerId = self.get().workerId();
        try {
            nodes.remove(workerId);
        } catch (RuntimeException e) {
            LOG.debug("could not remove the row of node {}: {}", workerId, e.toString());
        }
    }

    /**
     * A worker id for a process that was given none: {@code <host>-<pid>-<4 hex digits>} (the random part keeps two
     * containers whose processes share a host name and pid apart).
     */
    public static String defaultWorkerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "node";
        }
        String pid = Long.toString(ManagementFactory.getRuntimeMXBean().getPid());
        return host + "-" + pid + "-" + Integer.toHexString(new SecureRandom().nextInt(0x10000));
    }
}
