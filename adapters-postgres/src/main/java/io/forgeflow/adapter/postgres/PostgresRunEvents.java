package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The cluster's run changes over PostgreSQL {@code LISTEN/NOTIFY} on channel {@value #CHANNEL} ({@link RunEvents}),
 * through the node's {@link PostgresNotifier}.
 *
 * <p><b>Publishing never touches the hot path.</b> Nothing is sent inside the claim engine's transactions (PostgreSQL
 * serialises the commits of notifying transactions); {@link #publish} only appends to an in-memory queue. The
 * notifier's sender takes whatever accumulated, packed into payloads of at most {@value #MAX_PAYLOAD_BYTES} bytes (the
 * limit is 8000), and sends them in one transaction; then it waits out a coalescing window (5 ms by default) before
 * sending again. So a node sends at most one notifying commit per window, however many runs it moves.
 *
 * <p>The queue is bounded ({@value #MAX_QUEUED} changes): past it, changes are dropped and the next payload starts
 * with a gap marker, as after a failed send, so that every api node tells its event clients to re-read the state.
 *
 * <p><b>Payload format</b> (text, one change per line, fields separated by commas, the worker id last since it may
 * contain commas): {@code <run id>,<job id>,<status>,<attempt>,<at, epoch millis>,<worker id or empty>}. A line
 * starting with {@code !} is a gap marker: {@code !<reason>}. Anyone can watch with {@code LISTEN forgeflow_runs} in
 * psql.
 *
 * <p><b>Receiving</b> starts with the first {@link #subscribe}: the notifier listens on the channel and this calls the
 * listeners in the order the database delivers. After the listening connection was re-established, listeners hear of
 * a {@linkplain RunEvents.Listener#gap gap}, since changes may have been published meanwhile. Nodes that never
 * subscribe (workers) do not listen on the channel.
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

    private final PostgresNotifier notifier;
    private final boolean ownsNotifier;
    private final PostgresNotifier.Channel channel;
    private final ConcurrentLinkedQueue<RunChange> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicReference<String> pendingGap = new AtomicReference<>();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final PostgresNotifier.Listener heard = new PostgresNotifier.Listener() {
        @Override
        public void notified(List<String> payloads) {
            deliver(payloads);
        }

        @Override
        public void reconnected() {
            notifyGap("this node's event connection to the database was re-established");
        }
    };
    private boolean listening;
    private volatile boolean closed;

    /** With a notifier of its own on these dedicated connections ({@link DedicatedConnections}). */
    public PostgresRunEvents(Supplier<Connection> connections) {
        this(new PostgresNotifier(connections), DEFAULT_WINDOW, true);
    }

    /** With a notifier of its own and this coalescing window. */
    public PostgresRunEvents(Supplier<Connection> connections, Duration window) {
        this(new PostgresNotifier(connections), window, true);
    }

    /** On the node's shared notifier (which its owner closes). */
    public PostgresRunEvents(PostgresNotifier notifier) {
        this(notifier, DEFAULT_WINDOW, false);
    }

    private PostgresRunEvents(PostgresNotifier notifier, Duration window, boolean ownsNotifier) {
        this.notifier = Objects.requireNonNull(notifier, "notifier");
        this.ownsNotifier = ownsNotifier;
        this.channel = notifier.sender(CHANNEL, window, new PostgresNotifier.Outbox() {
            @Override
            public List<String> take() {
                return takeQueued();
            }

            @Override
            public void lost(List<String> payloads, Exception cause) {
                int changes = 0;
                for (String payload : payloads) {
                    changes += payload.isEmpty() ? 0 : (int) payload.lines().filter(l -> !l.startsWith("!")).count();
                }
                dropped.addAndGet(changes);
                published.addAndGet(-changes);
                pendingGap.compareAndSet(null, "a node could not publish its changes: " + cause.getMessage());
                channel.request();
                LOG.warn("could not NOTIFY {} ({} run change(s) dropped; event clients will be told to re-read)",
                        CHANNEL, changes);
            }
        });
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
        channel.request();
    }

    @Override
    public synchronized AutoCloseable subscribe(Listener listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        if (!listening && !closed) {
            listening = true;
            notifier.listen(CHANNEL, heard);
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
        return channel.notificationsSent();
    }

    /** Changes received from the database by this node's listener (a metric). */
    public long receivedCount() {
        return received.get();
    }

    /**
     * Stops publishing and listening; sends what is queued first (waiting at most two seconds). Closes the notifier if
     * it is this one's own.
     */
    @Override
    public void close() {
        closed = true;
        notifier.unlisten(CHANNEL, heard);
        channel.request();
        if (ownsNotifier) {
            notifier.close();
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while ((!queue.isEmpty() || channel.requested()) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Takes up to {@value #MAX_PER_ROUND} queued changes (and a pending gap marker) as payloads; sender thread. */
    private List<String> takeQueued() {
        List<RunChange> batch = new ArrayList<>();
        RunChange change;
        while (batch.size() < MAX_PER_ROUND && (change = queue.poll()) != null) {
            batch.add(change);
        }
        queued.addAndGet(-batch.size());
        if (batch.size() == MAX_PER_ROUND) {
            channel.request(); // more is waiting: go again after the window
        }
        published.addAndGet(batch.size());
        return encode(batch, pendingGap.getAndSet(null));
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

    /** Delivers one batch of payloads in order; a gap marker (always first in its payload) splits it. */
    private void deliver(List<String> payloads) {
        List<RunChange> changes = new ArrayList<>();
        for (String payload : payloads) {
            List<RunChange> here = new ArrayList<>();
            List<String> gaps = new ArrayList<>();
            decode(payload, here, gaps);
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

    /**
     * Runs were enqueued from SQL without their {@code pending} event ({@link SqlEnqueueWatch}): this node's listeners
     * hear of a gap, so that a stream tells its client to re-read.
     */
    public void sqlEnqueuesNotStreamed() {
        notifyGap("runs were enqueued from SQL while the nodes watched for them, without a pending event each");
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
}
