package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The cluster's run changes over PostgreSQL {@code LISTEN/NOTIFY} on channel {@value #CHANNEL} ({@link RunEvents}).
 *
 * <p><b>Publishing never touches the hot path.</b> The claim engine's statements commit without any {@code NOTIFY}
 * (PostgreSQL serialises the commits of notifying transactions, which would cap the claim and acknowledgement rate);
 * {@link #publish} only appends to an in-memory queue. A sender thread takes whatever accumulated, packs it into
 * payloads of at most {@value #MAX_PAYLOAD_BYTES} bytes (the limit is 8000), and sends them with {@code pg_notify}
 * in one transaction of its own, on a dedicated connection; then it waits out a coalescing window (5 ms by default)
 * before sending again. So a node sends at most one notifying commit per window, however many runs it moves, and
 * that commit does not wait for a WAL flush ({@code synchronous_commit = off} on the sending session: run changes
 * are best effort, see the gap marker below).
 *
 * <p>The queue is bounded ({@value #MAX_QUEUED} changes): past it, changes are dropped and the next payload starts
 * with a gap marker, as after a failed send, so that every api node tells its event clients to re-read the state.
 *
 * <p><b>Payload format</b> (text, one change per line, fields separated by commas, the worker id last since it may
 * contain commas): {@code <run id>,<job id>,<status>,<attempt>,<at, epoch millis>,<worker id or empty>}. A line
 * starting with {@code !} is a gap marker: {@code !<reason>}. Anyone can watch with {@code LISTEN forgeflow_runs} in
 * psql.
 *
 * <p><b>Receiving</b> starts with the first {@link #subscribe}: a listener thread {@code LISTEN}s on a dedicated
 * connection and calls the listeners in the order the database delivers. After its connection drops it reconnects
 * (backing off up to a second) and reports a {@linkplain RunEvents.Listener#gap gap}, since changes may have been
 * published meanwhile. Nodes that never subscribe (workers) open no listening connection.
 */
public final class PostgresRunEvents implements RunEvents, Closeable {
    /** The notification channel. */
    public static final String CHANNEL = "forgeflow_runs";
    /** The default coalescing window: at most one notifying commit per window. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMillis(5);
    /** Changes waiting to be sent, at most. */
    public static final int MAX_QUEUED = 100_000;
    /** The largest payload sent (PostgreSQL refuses 8000 bytes or more). */
    public static final int MAX_PAYLOAD_BYTES = 7_900;

    private static final Logger LOG = LoggerFactory.getLogger(PostgresRunEvents.class);
    private static final int MAX_PER_ROUND = 20_000;
    private static final long SLICE_MILLIS = 250;
    private static final long MAX_BACKOFF_MILLIS = 1_000;

    private final Supplier<Connection> connections;
    private final long windowNanos;
    private final ConcurrentLinkedQueue<RunChange> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicReference<String> pendingGap = new AtomicReference<>();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong notifications = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Thread sender;
    private volatile Thread receiver;
    private volatile boolean closed;
    private Connection sending;

    /** @param connections opens dedicated connections (see {@link DedicatedConnections}): one to NOTIFY, one to LISTEN */
    public PostgresRunEvents(Supplier<Connection> connections) {
        this(connections, DEFAULT_WINDOW);
    }

    /** @param window the coalescing window: at most one notifying commit per window */
    public PostgresRunEvents(Supplier<Connection> connections, Duration window) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.windowNanos = Math.max(0, window.toNanos());
        this.sender = new Thread(this::sendLoop, "forgeflow-run-events-notify");
        sender.setDaemon(true);
        sender.start();
    }

    /** {@inheritDoc} Appends to an in-memory queue and at most unparks the sender: no I/O, no lock. */
    @Override
    public void publish(List<RunChange> changes) {
        if (closed || changes == null || changes.isEmpty()) {
            return;
        }
        for (RunChange change : changes) {
            if (queued.incrementAndGet() > MAX_QUEUED) {
                queued.decrementAndGet();
                dropped.incrementAndGet();
                pendingGap.compareAndSet(null, "the publisher of a node fell behind and dropped changes");
                continue;
            }
            queue.add(change);
        }
        if (!requested.get() && !requested.getAndSet(true)) {
            LockSupport.unpark(sender);
        }
    }

    @Override
    public synchronized AutoCloseable subscribe(Listener listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        if (receiver == null && !closed) {
            Thread thread = new Thread(this::listenLoop, "forgeflow-run-events-listen");
            thread.setDaemon(true);
            receiver = thread;
            thread.start();
        }
        return () -> listeners.remove(listener);
    }

    /** Changes handed to {@link #publish} and queued (a metric). */
    public long publishedCount() {
        return published.get();
    }

    /** Changes dropped because the queue was full or a send failed (a metric). */
    public long droppedCount() {
        return dropped.get();
    }

    /** Notifications sent (a metric; far fewer than changes). */
    public long notificationsSent() {
        return notifications.get();
    }

    /** Changes received from the database by this node's listener (a metric). */
    public long receivedCount() {
        return received.get();
    }

    /** Sends what is queued (waiting at most two seconds), then stops both threads and closes the connections. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(sender);
        Thread listening = receiver;
        try {
            sender.join(TimeUnit.SECONDS.toMillis(2));
            if (listening != null) {
                listening.interrupt();
                listening.join(TimeUnit.SECONDS.toMillis(2));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------------------ sending

    private void sendLoop() {
        while (true) {
            boolean stopping = closed;
            if (!requested.getAndSet(false) && queue.isEmpty() && pendingGap.get() == null) {
                if (stopping) {
                    break;
                }
                LockSupport.park(this);
                continue;
            }
            sendQueued();
            if (stopping) {
                if (queue.isEmpty()) {
                    break;
                }
                continue;
            }
            long until = System.nanoTime() + windowNanos;
            long left;
            while (!closed && (left = until - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, left);
            }
        }
        closeQuietly(sending);
        sending = null;
    }

    /** Sends up to {@value #MAX_PER_ROUND} queued changes (and a pending gap marker) in one transaction. */
    private void sendQueued() {
        List<RunChange> batch = new ArrayList<>();
        RunChange change;
        while (batch.size() < MAX_PER_ROUND && (change = queue.poll()) != null) {
            batch.add(change);
        }
        queued.addAndGet(-batch.size());
        if (batch.size() == MAX_PER_ROUND) {
            requested.set(true); // more is waiting: go again after the window
        }
        String gap = pendingGap.getAndSet(null);
        List<String> payloads = encode(batch, gap);
        if (payloads.isEmpty()) {
            return;
        }
        for (int round = 1; round <= 2; round++) {
            try {
                if (sending == null) {
                    sending = connections.get();
                    sending.setAutoCommit(true);
                    DedicatedConnections.commitWithoutWaitingForTheFlush(sending);
                }
                sending.setAutoCommit(false);
                try (PreparedStatement notify = sending.prepareStatement("SELECT pg_notify(?, ?)")) {
                    for (String payload : payloads) {
                        notify.setString(1, CHANNEL);
                        notify.setString(2, payload);
                        notify.execute();
                    }
                }
                sending.commit();
                notifications.addAndGet(payloads.size());
                published.addAndGet(batch.size());
                return;
            } catch (SQLException | RuntimeException e) {
                closeQuietly(sending);
                sending = null;
                if (round == 2) {
                    dropped.addAndGet(batch.size());
                    pendingGap.compareAndSet(null, "a node could not publish its changes: " + e.getMessage());
                    LOG.warn("could not NOTIFY {} ({} run change(s) dropped; event clients will be told to "
                            + "re-read): {}", CHANNEL, batch.size(), e.getMessage());
                }
            }
        }
    }

    /** Packs changes into payloads under the size limit; a gap marker, if any, comes first. */
    static List<String> encode(List<RunChange> changes, String gap) {
        List<String> payloads = new ArrayList<>();
        StringBuilder payload = new StringBuilder();
        int bytes = 0;
        List<String> lines = new ArrayList<>(changes.size() + 1);
        if (gap != null) {
            lines.add("!" + oneLine(gap, 500));
        }
        for (RunChange change : changes) {
            lines.add(encode(change));
        }
        for (String line : lines) {
            int size = line.getBytes(StandardCharsets.UTF_8).length + 1;
            if (size > MAX_PAYLOAD_BYTES) {
                continue; // cannot happen with ids of bounded length; never send what PostgreSQL would refuse
            }
            if (bytes + size > MAX_PAYLOAD_BYTES) {
                payloads.add(payload.toString());
                payload.setLength(0);
                bytes = 0;
            }
            if (bytes > 0) {
                payload.append('\n');
            }
            payload.append(line);
            bytes += size;
        }
        if (bytes > 0) {
            payloads.add(payload.toString());
        }
        return payloads;
    }

    private static String encode(RunChange c) {
        return c.runId() + ',' + c.jobId() + ',' + c.status().wireName() + ',' + c.attempt() + ','
                + c.at().toEpochMilli() + ',' + (c.workerId() == null ? "" : oneLine(c.workerId(), 200));
    }

    /** Decodes one payload: changes (in order) to {@code changes}; the gap markers' reasons to {@code gaps}. */
    static void decode(String payload, List<RunChange> changes, List<String> gaps) {
        if (payload == null || payload.isEmpty()) {
            return;
        }
        for (String line : payload.split("\n")) {
            if (line.startsWith("!")) {
                gaps.add(line.substring(1));
                continue;
            }
            String[] f = line.split(",", 6);
            if (f.length < 6) {
                LOG.debug("ignoring a malformed run event line: {}", line);
                continue;
            }
            try {
                changes.add(new RunChange(f[0], f[1], RunStatus.fromWire(f[2]), Integer.parseInt(f[3]),
                        f[5].isEmpty() ? null : f[5], Instant.ofEpochMilli(Long.parseLong(f[4]))));
            } catch (IllegalArgumentException e) {
                LOG.debug("ignoring a malformed run event line ({}): {}", e.getMessage(), line);
            }
        }
    }

    private static String oneLine(String s, int max) {
        String flat = s.replace('\n', ' ').replace('\r', ' ');
        return flat.length() > max ? flat.substring(0, max) : flat;
    }

    // ------------------------------------------------------------------------------------------------ receiving

    private void listenLoop() {
        Connection connection = null;
        boolean everListened = false;
        long backoff = 100;
        while (!closed) {
            if (connection == null) {
                try {
                    connection = connections.get();
                    connection.setAutoCommit(true);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("LISTEN " + CHANNEL);
                    }
                    backoff = 100;
                    if (everListened) {
                        LOG.info("LISTEN {} re-established", CHANNEL);
                        notifyGap("this node's event connection to the database was re-established");
                    }
                    everListened = true;
                } catch (SQLException | RuntimeException e) {
                    closeQuietly(connection);
                    connection = null;
                    if (backoff >= MAX_BACKOFF_MILLIS || !everListened) {
                        LOG.warn("could not LISTEN {}: {}; retrying", CHANNEL, e.getMessage());
                    }
                    if (!sleep(backoff)) {
                        break;
                    }
                    backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                    everListened = true; // whatever was published meanwhile is missed
                    continue;
                }
            }
            try {
                PGNotification[] batch = connection.unwrap(PGConnection.class).getNotifications((int) SLICE_MILLIS);
                if (batch != null && batch.length > 0) {
                    deliver(batch);
                }
            } catch (SQLException e) {
                if (!closed) {
                    LOG.warn("the LISTEN {} connection failed ({}); reconnecting", CHANNEL, e.getMessage());
                }
                closeQuietly(connection);
                connection = null;
            }
        }
        closeQuietly(connection);
    }

    /** Delivers one batch of notifications in order; a gap marker (always first in its payload) splits it. */
    private void deliver(PGNotification[] batch) {
        List<RunChange> changes = new ArrayList<>();
        for (PGNotification notification : batch) {
            if (!CHANNEL.equals(notification.getName())) {
                continue;
            }
            List<RunChange> here = new ArrayList<>();
            List<String> gaps = new ArrayList<>();
            decode(notification.getParameter(), here, gaps);
            if (!gaps.isEmpty()) {
                notifyChanged(changes);
                changes.clear();
                gaps.forEach(this::notifyGap);
            }
            changes.addAll(here);
        }
        notifyChanged(changes);
    }

    private void notifyChanged(List<RunChange> changes) {
        if (changes.isEmpty()) {
            return;
        }
        received.addAndGet(changes.size());
        List<RunChange> delivered = List.copyOf(changes);
        for (Listener listener : listeners) {
            try {
                listener.changed(delivered);
            } catch (RuntimeException e) {
                LOG.warn("a run event listener failed: {}", e.toString());
            }
        }
    }

    private void notifyGap(String reason) {
        for (Listener listener : listeners) {
            try {
                listener.gap(reason);
            } catch (RuntimeException e) {
                LOG.warn("a run event listener failed: {}", e.toString());
            }
        }
    }

    private boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return !closed;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("closing a run events connection failed: {}", e.getMessage());
        }
    }
}
