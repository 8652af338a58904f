package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.LeaderElection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Scheduler leadership by a session-level PostgreSQL advisory lock ({@link LeaderElection}).
 *
 * <p>The leader is the node whose dedicated connection holds {@code pg_try_advisory_lock(}{@value #LOCK_KEY}{@code )}
 * (the bytes of "ForgeFlo" as a bigint; advisory locks are per database, so one key serves every cluster that has a
 * database of its own). The connection comes from a {@link Supplier} of connections outside the pool (see
 * {@link DedicatedConnections}): a pooled connection would hand the session, and with it the lock, to whichever request
 * borrows it next. For the same reason it must reach PostgreSQL directly, never through PgBouncer in transaction mode.
 *
 * <p>Why a lock rather than a lease row: the lock lives exactly as long as the session. When the leader's process
 * dies, its host vanishes or its connection drops, PostgreSQL ends the session and releases the lock, and a standby
 * takes over at its next campaign; there is no lease duration to tune, no clock to trust, and no window in which a
 * paused leader's lease has expired while it still acts on it. What a lock cannot do, the schema does: a tick is a
 * compare-and-set on the job's {@code next_run_at} plus a unique index on the tick, so even two nodes that both
 * believed they led could not fire a tick twice.
 *
 * <p>A leader confirms the lock at every campaign (a query on {@code pg_locks} for its own backend, with a short
 * network timeout) and, at the first error, closes its connection (which releases the lock if the session still
 * lives) and reports that it no longer leads. Thread-safe.
 */
public final class AdvisoryLockLeaderElection implements LeaderElection, Closeable {
    /** The advisory lock key: "ForgeFlo" in ASCII, as a signed 64-bit integer. */
    public static final long LOCK_KEY = 0x466F_7267_6546_6C6FL;

    private static final Logger LOG = LoggerFactory.getLogger(AdvisoryLockLeaderElection.class);
    private static final int NETWORK_TIMEOUT_MILLIS = 3_000;

    private final Supplier<Connection> connections;
    private final long lockKey;
    private Connection connection;
    private volatile boolean leader;

    /** Campaigns for {@link #LOCK_KEY} on connections from {@code connections} (one at a time, kept open). */
    public AdvisoryLockLeaderElection(Supplier<Connection> connections) {
        this(connections, LOCK_KEY);
    }

    /** Campaigns for another key (tests, or two ForgeFlow clusters sharing one database). */
    public AdvisoryLockLeaderElection(Supplier<Connection> connections, long lockKey) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.lockKey = lockKey;
    }

    @Override
    public synchronized boolean campaign() {
        try {
            if (leader) {
                if (lockStillHeld()) {
                    return true;
                }
                LOG.warn("lost the scheduler lock {} although the session lives; stepping down", lockKey);
                stepDown();
                return false;
            }
            if (connection == null) {
                connection = open();
            }
            leader = tryLock();
            if (leader) {
                LOG.info("leading the scheduler (advisory lock {})", lockKey);
            }
            return leader;
        } catch (SQLException | RuntimeException e) {
            if (leader) {
                LOG.warn("stepping down: the leader's connection failed ({})", e.getMessage());
            } else {
                LOG.debug("campaign failed: {}", e.getMessage());
            }
            stepDown();
            return false;
        }
    }

    @Override
    public boolean isLeader() {
        return leader;
    }

    @Override
    public synchronized void resign() {
        if (!leader) {
            return;
        }
        leader = false;
        try (PreparedStatement unlock = connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            unlock.setLong(1, lockKey);
            unlock.executeQuery().close();
            LOG.info("resigned the scheduler lead (advisory lock {})", lockKey);
        } catch (SQLException | RuntimeException e) {
            closeConnection();
        }
    }

    /** Resigns and closes the dedicated connection. */
    @Override
    public synchronized void close() {
        resign();
        closeConnection();
    }

    private Connection open() throws SQLException {
        Connection opened = connections.get();
        try {
            opened.setAutoCommit(true);
            opened.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
            return opened;
        } catch (SQLException | RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    private boolean tryLock() throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            lock.setLong(1, lockKey);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** A bigint advisory lock shows in pg_locks as classid = high 32 bits, objid = low 32 bits, objsubid = 1. */
    private boolean lockStillHeld() throws SQLException {
        try (PreparedStatement check = connection.prepareStatement(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
                        + "AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                        + "AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1)")) {
            check.setLong(1, lockKey >>> 32);
            check.setLong(2, lockKey & 0xFFFF_FFFFL);
            try (ResultSet rs = check.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private void stepDown() {
        leader = false;
        closeConnection();
    }

    private void closeConnection() {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("closing the leader connection failed: {}", e.getMessage());
        }
        connection = null;
    }
}
