package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.WorkSignal;

import java.io.Closeable;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Wake-ups over PostgreSQL {@code LISTEN/NOTIFY} on channel {@value #CHANNEL} ({@link WorkSignal}), through the node's
 * {@link PostgresNotifier}.
 *
 * <p><b>Sending is coalesced.</b> {@link #runsBecameDue()} only raises a flag; the notifier's sender sends one
 * {@code NOTIFY} and then waits out a window (2 ms by default) before it sends again, so any number of calls in a
 * window cost one notification, never inside a caller's transaction. This node's own waiters are woken at once,
 * without the notification's round trip. A node alone sends none (see {@link PostgresNotifier}: listeners hold a
 * shared advisory lock and announce themselves when they start).
 *
 * <p><b>Receiving</b>: it listens from construction on (if the database answers; otherwise as soon as it does).
 * Notifications that arrive while nobody waits wake the next {@link #await}. After the listening connection was
 * re-established, {@code await} reports a signal, since one may have been missed meanwhile (a spurious wake-up costs
 * one claim query; a lost one costs a poll interval). Its own notifier's notifications are not heard: they would only
 * repeat the local wake-up (at 200 submissions a second they doubled the claims). So one signal per notifier.
 */
public final class PostgresWorkSignal implements WorkSignal, Closeable {
    /** The notification channel. */
    public static final String CHANNEL = "forgeflow_due";
    /** The default coalescing window: at most one NOTIFY per window. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMillis(2);
    /** The payload of {@code enqueue()}'s wake-ups (a node's own have none). */
    public static final String SQL_PAYLOAD = "sql";

    private final PostgresNotifier notifier;
    private final boolean ownsNotifier;
    private final PostgresNotifier.Channel channel;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    private boolean pending;
    private volatile boolean closed;
    private volatile SqlEnqueueWatch sqlWatch;

    /** With a notifier of its own on these dedicated connections ({@link DedicatedConnections}). */
    public PostgresWorkSignal(Supplier<Connection> connections) {
        this(new PostgresNotifier(connections), DEFAULT_WINDOW, true);
    }

    /** With a notifier of its own and this coalescing window. */
    public PostgresWorkSignal(Supplier<Connection> connections, Duration window) {
        this(new PostgresNotifier(connections), window, true);
    }

    /** Tests: with a notifier of its own that keeps its answer to "does another node listen" this long. */
    static PostgresWorkSignal withRecheck(Supplier<Connection> connections, Duration recheck) {
        return new PostgresWorkSignal(PostgresNotifier.withRecheck(connections, recheck), DEFAULT_WINDOW, true);
    }

    /** On the node's shared notifier (which its owner closes). */
    public PostgresWorkSignal(PostgresNotifier notifier) {
        this(notifier, DEFAULT_WINDOW, false);
    }

    private PostgresWorkSignal(PostgresNotifier notifier, Duration window, boolean ownsNotifier) {
        this.notifier = Objects.requireNonNull(notifier, "notifier");
        this.ownsNotifier = ownsNotifier;
        this.channel = notifier.sender(CHANNEL, window, () -> List.of(""));
        notifier.listen(CHANNEL, new PostgresNotifier.Listener() {
            @Override
            public void notified(List<String> payloads) {
                signal();
                SqlEnqueueWatch watch = sqlWatch;
                if (watch != null) {
                    for (String payload : payloads) {
                        if (SQL_PAYLOAD.equals(payload)) {
                            watch.heardEnqueue();
                        }
                    }
                }
            }

            @Override
            public void reconnected() {
                signal();
            }

            @Override
            public boolean hearsOwnSends() {
                return false; // runsBecameDue() woke this node's waiters already
            }
        });
    }

    /**
     * {@inheritDoc} Wakes this node's own waiters at once (a node that both submits and works need not wait for its
     * NOTIFY to come back), and raises the sender's flag for the other nodes: no I/O here.
     */
    @Override
    public void runsBecameDue() {
        channel.request();
        signal();
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        long left = Math.max(0, timeout.toNanos());
        lock.lockInterruptibly();
        try {
            while (!pending && !closed) {
                if (left <= 0) {
                    return false;
                }
                left = signalled.awaitNanos(left);
            }
            boolean woken = pending;
            pending = false;
            return woken;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Watches for runs {@code enqueue()} adds without a NOTIFY ({@link SqlEnqueueWatch}), on {@code jdbi}: a worker
     * node ({@code promises}) promises to look every few milliseconds and wakes its waiters each time; any node tells
     * {@code missedEvents} when runs were enqueued without their {@code pending} event. Closed with this signal.
     */
    public SqlEnqueueWatch watchSqlEnqueues(org.jdbi.v3.core.Jdbi jdbi, boolean promises, Runnable missedEvents) {
        return watchSqlEnqueues(jdbi, promises, this::signal, missedEvents);
    }

    /** Tests: the watch's wake-ups go to {@code wake} instead of this signal's waiters. */
    synchronized SqlEnqueueWatch watchSqlEnqueues(org.jdbi.v3.core.Jdbi jdbi, boolean promises, Runnable wake,
                                                  Runnable missedEvents) {
        if (sqlWatch != null) {
            throw new IllegalStateException("this signal watches already");
        }
        SqlEnqueueWatch watch = new SqlEnqueueWatch(jdbi, promises, wake, missedEvents);
        sqlWatch = watch;
        return watch;
    }

    /** How many NOTIFYs were sent (a metric; far fewer than calls of {@link #runsBecameDue()}). */
    public long notificationsSent() {
        return channel.notificationsSent();
    }

    /** How many NOTIFYs were not sent because no other node listened (this node's waiters were woken in process). */
    public long notificationsSkipped() {
        return channel.notificationsSkipped();
    }

    /** Stops waking waiters; closes the notifier if it is this signal's own. */
    @Override
    public void close() {
        closed = true;
        SqlEnqueueWatch watch = sqlWatch;
        if (watch != null) {
            watch.close();
        }
        lock.lock();
        try {
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
        if (ownsNotifier) {
            notifier.close();
        }
    }

    private void signal() {
        lock.lock();
        try {
            pending = true;
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
