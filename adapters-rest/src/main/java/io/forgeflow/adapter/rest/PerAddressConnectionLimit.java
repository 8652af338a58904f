package io.forgeflow.adapter.rest;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cap on the open connections from one client address ({@link SlowClientLimits#maxConnectionsPerAddress()}): a
 * connection that would pass it is closed as it opens, unanswered, before anything of it is read. One address with
 * many slow connections then holds at most its share of the node; other addresses are served. Jetty's own
 * {@code ConnectionLimit} counts all connections together, so a single client could fill it.
 */
public final class PerAddressConnectionLimit implements Connection.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(PerAddressConnectionLimit.class);
    private final int max;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();

    public PerAddressConnectionLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the connections per address must be at least 1, was " + max);
        }
        this.max = max;
    }

    /** Puts this limit on every connector of {@code server} (call it while the server is starting). */
    public void applyTo(Server server) {
        for (Connector connector : server.getConnectors()) {
            connector.addEventListener(this);
        }
    }

    /** The connections closed so far for passing the cap. */
    public long refused() {
        return refused.get();
    }

    @Override
    public void onOpened(Connection connection) {
        InetAddress address = address(connection);
        if (address == null) {
            return;
        }
        int now = open.merge(address, 1, Integer::sum);
        if (now > max) {
            if (refused.getAndIncrement() % 1000 == 0) {
                LOG.warn("closed a connection from {}: it has {} open, the most one address may have "
                        + "(FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS); {} refused so far", address.getHostAddress(),
                        max, refused.get());
            }
            connection.getEndPoint().close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        InetAddress address = address(connection);
        if (address != null) {
            open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        }
    }

    private static InetAddress address(Connection connection) {
        SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
