package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.WorkSignal;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Wake-ups over PostgreSQL {@code LISTEN/NOTIFY} on channel {@value #CHANNEL} ({@link WorkSignal}).
 *
 * <p>Both directions use dedicated connections from the {@link Supplier} (see {@link DedicatedConnections}): outside
 * the pool, and never through PgBouncer in transaction mode, which would lose the session's {@code LISTEN}.
 *
 * <p><b>Sending is coalesced.</b> {@link #runsBecameDue()} only sets a flag; a background thread sends one
 * {@code NOTIFY} on a connection of its own and then waits out a window (2 ms by default) before it sends again, so
 * any number of calls in a window cost one notification. A {@code NOTIFY} is never sent inside a caller's
 * transaction: PostgreSQL serialises the commits of notifying transactions, which would cap submissions at a few
 * hundred per second. The sending session commits asynchronously ({@code synchronous_commit = off}): a notification
 * needs no durability, so it never waits for a WAL flush of its own. If the send fails, it is retried once on a new
 * connection, then dropped (workers also poll).
 *
 * <p><b>Receiving</b> uses another connection, which has run {@code LISTEN}; {@link #await} blocks in
 * {@link PGConnection#getNotifications(int)} in slices of at most 250 ms, so it stays interruptible. Notifications that
 * arrive while nobody waits are kept by the connection and wake the next {@code await}. If the connection drops,
 * {@code await} reconnects and then reports a signal, since one may have been missed meanwhile (a spurious wake-up
 * costs one claim query; a lost one costs a poll interval). One thread awaits at a time; others queue.
 */
public final class PostgresWorkSignal implements WorkSignal, Closeable {
    /** The notification channel. */
    public static final String CHANNEL = "forgeflow_due";
    /** The default coalescing window: at most one NOTIFY per window. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMillis(2);

    private static final Logger LOG = LoggerFactory.getLogger(PostgresWorkSignal.class);
    private static final long SLICE_MILLIS = 250;
    private static final long RECONNECT_BACKOFF_MILLIS = 1_000;

    private final Supplier<Connection> connections;
    private final long windowNanos;
    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final ReentrantLock listenLock = new ReentrantLock();
    private final Condition closing = listenLock.newCondition();
    private final Thread sender;
    private volatile boolean closed;
    private Connection listening;
    private Connection sending;
    private boolean everListened;
    private long lastConnectFailureNanos;
    private boolean connectFailed;

    /**
     * Listens at once (if the database answers; otherwise at the first {@link #await}) and starts the sender thread.
     *
     * @param connections opens the two dedicated connections, one to LISTEN and one to NOTIFY (see
     *                    {@link DedicatedConnections})
     */
    public PostgresWorkSignal(Supplier<Connection> connections) {
        this(connections, DEFAULT_WINDOW);
    }

    /** @param window the coalescing window: at most one NOTIFY is sent per window */
    public PostgresWorkSignal(Supplier<Connection> connections, Duration window) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.windowNanos = Math.max(0, window.toNanos());
        listenLock.lock();
        try {
            listening();
        } finally {
            listenLock.unlock();
        }
        this.sender = new Thread(this::sendLoop, "forgeflow-notify");
        sender.setDaemon(true);
        sender.start();
    }

    /** {@inheritDoc} Sets a flag and, at most, unparks the sender thread: no I/O, no lock. */
    @Override
    public void runsBecameDue() {
        if (!requested.get() && !requested.getAndSet(true)) {
            LockSupport.unpark(sender);
        }
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        if (!listenLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        try {
            do {
                if (closed) {
                    return false;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                boolean reconnecting = listening == null;
                Connection connection = listening();
                if (connection == null) {
                    long waitNanos = Math.min(deadline - System.nanoTime(),
                            TimeUnit.MILLISECONDS.toNanos(RECONNECT_BACKOFF_MILLIS));
                    if (waitNanos > 0) {
                        closing.awaitNanos(waitNanos);
                    }
                    continue;
                }
                if (reconnecting) {
                    return true;
                }
                long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                int slice = (int) Math.max(1, Math.min(SLICE_MILLIS, leftMillis));
                try {
                    PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(slice);
                    if (notifications != null && notifications.length > 0) {
                        return true;
                    }
                } catch (SQLException e) {
                    LOG.warn("the LISTEN connection failed ({}); reconnecting", e.getMessage());
                    closeListening();
                }
            } while (deadline - System.nanoTime() > 0);
            return false;
        } finally {
            listenLock.unlock();
        }
    }

    /** How many NOTIFYs the sender has sent (a metric; far fewer than calls of {@link #runsBecameDue()}). */
    public long notificationsSent() {
        return sent.get();
    }

    /** Stops the sender and closes the LISTEN connection. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(sender);
        boolean locked = false;
        try {
            locked = listenLock.tryLock(2, TimeUnit.SECONDS);
            if (locked) {
                closing.signalAll();
            }
            sender.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeListening();
            if (locked) {
                listenLock.unlock();
            }
        }
    }

    private void sendLoop() {
        while (!closed) {
            if (!requested.getAndSet(false)) {
                LockSupport.park(this);
                continue;
            }
            sendNotify();
            long until = System.nanoTime() + windowNanos;
            long left;
            while (!closed && (left = until - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, left);
            }
        }
        closeQuietly(sending);
        sending = null;
    }

    /** Runs on the sender thread only, which owns the sending connection. */
    private void sendNotify() {
        for (int round = 1; round <= 2; round++) {
            try {
                if (sending == null) {
                    sending = connections.get();
                    sending.setAutoCommit(true);
                    DedicatedConnections.commitWithoutWaitingForTheFlush(sending);
                }
                try (Statement statement = sending.createStatement()) {
                    statement.execute("NOTIFY " + CHANNEL);
                }
                sent.incrementAndGet();
                return;
            } catch (SQLException | RuntimeException e) {
                closeQuietly(sending);
                sending = null;
                if (round == 2) {
                    // workers fall back to polling; the next call of runsBecameDue tries again
                    LOG.warn("could not send NOTIFY {}: {}", CHANNEL, e.getMessage());
                }
            }
        }
    }

    /** The LISTEN connection, opened (and LISTENing) if needed; null when that fails. Call holding listenLock. */
    private Connection listening() {
        if (listening != null || closed) {
            return listening;
        }
        Connection connection = null;
        try {
            connection = connections.get();
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                statement.execute("LISTEN " + CHANNEL);
            }
            listening = connection;
            if (everListened) {
                LOG.info("LISTEN {} re-established", CHANNEL);
            }
            everListened = true;
            connectFailed = false;
            return connection;
        } catch (SQLException | RuntimeException e) {
            if (!connectFailed || System.nanoTime() - lastConnectFailureNanos > TimeUnit.MINUTES.toNanos(1)) {
                LOG.warn("could not LISTEN {}: {}; workers poll until it works", CHANNEL, e.getMessage());
                lastConnectFailureNanos = System.nanoTime();
            }
            connectFailed = true;
            closeQuietly(connection);
            return null;
        }
    }

    private void closeListening() {
        Connection connection = listening;
        listening = null;
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("closing a signal connection failed: {}", e.getMessage());
        }
    }
}
