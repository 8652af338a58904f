package io.forgeflow.adapter.postgres;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A node's {@code LISTEN/NOTIFY} on PostgreSQL, shared by the wake-up signal ({@link PostgresWorkSignal}) and the run
 * events ({@link PostgresRunEvents}): two dedicated connections (see {@link DedicatedConnections}, never through
 * PgBouncer in transaction mode, which would lose the session's {@code LISTEN}), each reopened after a drop.
 *
 * <p><b>Sending</b> is coalesced per channel ({@link #sender}): a caller only raises a flag; one sender thread takes
 * what each flagged channel has to send and sends it, at most once per that channel's window, never inside anybody
 * else's transaction (PostgreSQL serialises the commits of notifying transactions). The sending session commits
 * asynchronously ({@code synchronous_commit = off}): a notification needs no durability. A failed send is retried once
 * on a new connection, then the channel is told its payloads were lost.
 *
 * <p><b>Listening</b> starts with the first {@link #listen}: a thread {@code LISTEN}s on every channel asked for (only
 * ForgeFlow's own, {@code forgeflow_due} and {@code forgeflow_runs}: its statements are constant text) and
 * hands each channel's payloads, in the order the database delivered them, to its listeners. After its connection
 * drops it reconnects (backing off up to a second) and tells every listener, since notifications may have been
 * missed meanwhile.
 *
 * <p><b>No wake-up nobody else hears.</b> A connection listening on {@code forgeflow_due} holds a shared advisory
 * lock ({@link #LISTENER_LOCK_CLASS}) from before its {@code LISTEN}, and then announces itself on
 * {@code forgeflow_listeners}. The sender sends a {@code forgeflow_due} wake-up without payload only while a session
 * other than this notifier's own listener holds that lock (checked in {@code pg_locks}, the answer kept for a short
 * while; a failed check sends): a node alone wakes its own waiters in process and sends nothing. A node that starts
 * while another keeps "alone" is heard at once: its announcement makes every other node's sender trust "others
 * listen" again and send one wake-up, which reaches it since it already listens.
 */
public final class PostgresNotifier implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresNotifier.class);
    private static final int SLICE_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 1_000;
    private static final Duration FIRST_LISTEN_WAIT = Duration.ofSeconds(5);
    // statements are constant text: the channels that can be listened to are ForgeFlow's own
    private static final String LISTEN_DUE = "LISTEN " + PostgresWorkSignal.CHANNEL;
    private static final String LISTEN_RUNS = "LISTEN " + PostgresRunEvents.CHANNEL;
    private static final String NOTIFY_DUE = "NOTIFY " + PostgresWorkSignal.CHANNEL;
    private static final String NOTIFY = "SELECT pg_notify(?, ?)";
    /** Where a connection that starts listening on {@code forgeflow_due} announces itself. */
    static final String LISTENERS_CHANNEL = "forgeflow_listeners";
    private static final String LISTEN_LISTENERS = "LISTEN " + LISTENERS_CHANNEL;
    private static final String NOTIFY_LISTENERS = "NOTIFY " + LISTENERS_CHANNEL;
    /** The shared advisory lock (classid, objid) every connection listening on {@code forgeflow_due} holds. */
    static final int LISTENER_LOCK_CLASS = 0x4646_4475; // "FFDu"
    static final int LISTENER_LOCK_ID = 1;
    private static final String TAKE_LISTENER_LOCK = "SELECT pg_advisory_lock_shared(" + LISTENER_LOCK_CLASS + ", "
            + LISTENER_LOCK_ID + ")";
    private static final String OTHERS_LISTEN = "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
            + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            + "AND classid = CAST(" + LISTENER_LOCK_CLASS + " AS oid) AND objid = CAST(" + LISTENER_LOCK_ID
            + " AS oid) AND objsubid = 2 AND granted AND pid <> ?)";
    /** How long an answer of {@link #othersListen} is kept by default. */
    static final Duration DEFAULT_RECHECK = Duration.ofMillis(500);

    private final Supplier<Connection> connections;
    private final Supplier<Connection> senders;
    /** The sending connections go through a transaction pooler: no session setting may be made on them. */
    private final boolean pooledSender;
    /** Never listens: see {@link #sendingOnly}. */
    private final boolean sendOnly;
    private final List<Channel> channels = new CopyOnWriteArrayList<>();
    private final Thread sender;
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();
    private final Set<String> listened = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Registration> toListen = new ConcurrentLinkedQueue<>();
    private volatile Thread receiver;
    private volatile boolean closed;
    private Connection sending;
    /** The backend process of the sending connection, 0 while there is none (its echoes are told apart by it). */
    private volatile int sendingPid;
    /** The backend process of the listening connection, 0 while there is none. */
    private volatile int listeningPid;
    /** How long an answer of {@link #othersListen} is kept. */
    private final long recheckNanos;
    /** Another node announced that it started listening (set by the listening thread, taken by the sender). */
    private final AtomicBoolean othersJoined = new AtomicBoolean();
    /** A wake-up was not sent since the last announcement (set by the sender, taken by the listening thread). */
    private final AtomicBoolean skippedAlone = new AtomicBoolean();
    // the last answer of othersListen() and when it was found (sender thread only)
    private boolean othersListen = true;
    private boolean othersChecked;
    private long othersCheckedNanos;

    /** @param connections opens the dedicated connections: one to send on, one to listen on */
    public PostgresNotifier(Supplier<Connection> connections) {
        this(connections, connections, false);
    }

    /**
     * @param listening    opens the connection to listen on (session state: directly to PostgreSQL)
     * @param sending      opens the connection to send on
     * @param pooledSender {@code sending} goes through a transaction pooler (PgBouncer in transaction mode): its
     *                     session is left as it is, and echoes are not told apart (the backend changes)
     */
    public PostgresNotifier(Supplier<Connection> listening, Supplier<Connection> sending, boolean pooledSender) {
        this(listening, sending, pooledSender, false);
    }

    /**
     * A notifier that never listens (a node with no session connection, behind a transaction pooler: its wake-ups
     * come by polling): it sends on {@code sending} for the nodes that do listen, and hands what it sent to its own
     * listeners that {@linkplain Listener#hearsOwnSends hear their own sends} (this node's changes only).
     */
    public static PostgresNotifier sendingOnly(Supplier<Connection> sending) {
        return new PostgresNotifier(() -> {
            throw new IllegalStateException("a sending-only notifier does not listen");
        }, sending, true, true);
    }

    private PostgresNotifier(Supplier<Connection> listening, Supplier<Connection> sending, boolean pooledSender,
                             boolean sendOnly) {
        this(listening, sending, pooledSender, sendOnly, DEFAULT_RECHECK);
    }

    /** Tests: how long the sender keeps its answer to "does another node listen". */
    static PostgresNotifier withRecheck(Supplier<Connection> connections, Duration recheck) {
        return new PostgresNotifier(connections, connections, false, false, recheck);
    }

    private PostgresNotifier(Supplier<Connection> listening, Supplier<Connection> sending, boolean pooledSender,
                             boolean sendOnly, Duration recheck) {
        this.recheckNanos = Math.max(0, recheck.toNanos());
        this.sendOnly = sendOnly;
        this.connections = Objects.requireNonNull(listening, "listening");
        this.senders = Objects.requireNonNull(sending, "sending");
        this.pooledSender = pooledSender;
        this.sender = new Thread(this::sendLoop, "forgeflow-notify");
        sender.setDaemon(true);
        sender.start();
    }

    /** What a channel this node sends on has to send; called on the sender thread only. */
    public interface Outbox {
        /** The payloads to send now, in order; empty for none. An empty string sends a notification without one. */
        List<String> take();

        /** The payloads {@link #take} returned could not be sent (twice): they are lost. */
        default void lost(List<String> payloads, Exception cause) {
        }
    }

    /** Hears the notifications of a channel. Called on the listening thread; must return quickly. */
    public interface Listener {
        /** Payloads that arrived, in delivery order. */
        void notified(List<String> payloads);

        /** The listening connection was re-established: notifications may have been missed. */
        default void reconnected() {
        }

        /**
         * Whether this listener hears what this notifier itself sent. A listener that acts on its own sends at once
         * (the wake-up signal wakes its node's waiters without the round trip) says no: the echo would cost a claim.
         */
        default boolean hearsOwnSends() {
            return true;
        }
    }

    /** A channel this node sends on. */
    public final class Channel {
        private final String name;
        private final long windowNanos;
        private final Outbox outbox;
        private final AtomicBoolean requested = new AtomicBoolean();
        private final AtomicLong sent = new AtomicLong();
        private final AtomicLong skipped = new AtomicLong();
        private long nextAllowedNanos;

        private Channel(String name, long windowNanos, Outbox outbox) {
            this.name = name;
            this.windowNanos = windowNanos;
            this.outbox = outbox;
        }

        /** Asks for a send: no I/O, no lock; any number of calls within a window cost one send. */
        public void request() {
            if (!requested.get() && !requested.getAndSet(true)) {
                LockSupport.unpark(sender);
            }
        }

        /** Whether a send was asked for and has not been made yet. */
        public boolean requested() {
            return requested.get();
        }

        /** How many notifications this channel has sent. */
        public long notificationsSent() {
            return sent.get();
        }

        /** How many wake-ups were not sent because no other node listened. */
        public long notificationsSkipped() {
            return skipped.get();
        }
    }

    /** Registers a channel to send on, at most once per {@code window}. */
    public Channel sender(String channel, Duration window, Outbox outbox) {
        Channel c = new Channel(identifier(channel), Math.max(0, window.toNanos()), Objects.requireNonNull(outbox));
        channels.add(c);
        return c;
    }

    /**
     * Listens on {@code channel}, starting the listening thread if needed, and waits (up to a few seconds) until the
     * {@code LISTEN} has been tried once, so that notifications sent after this returns are heard if the database
     * answered. Returns whether it is listening.
     */
    public boolean listen(String channel, Listener listener) {
        String name = identifier(channel);
        if (!name.equals(PostgresWorkSignal.CHANNEL) && !name.equals(PostgresRunEvents.CHANNEL)) {
            throw new IllegalArgumentException("only " + PostgresWorkSignal.CHANNEL + " and " + PostgresRunEvents.CHANNEL
                    + " can be listened to, not " + name);
        }
        listeners.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>()).add(Objects.requireNonNull(listener));
        if (sendOnly) {
            return false;
        }
        Registration registration = new Registration(name, new CountDownLatch(1));
        synchronized (this) {
            if (closed) {
                return false;
            }
            toListen.add(registration);
            if (receiver == null) {
                Thread thread = new Thread(this::listenLoop, "forgeflow-listen");
                thread.setDaemon(true);
                receiver = thread;
                thread.start();
            }
        }
        try {
            registration.tried().await(FIRST_LISTEN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return listened.contains(name);
    }

    /** Stops listening for this listener (the channel stays listened to). */
    public void unlisten(String channel, Listener listener) {
        List<Listener> forChannel = listeners.get(identifier(channel));
        if (forChannel != null) {
            forChannel.remove(listener);
        }
    }

    /** Whether a listening thread was ever started (a node that only sends opens no listening connection). */
    public boolean listensAtAll() {
        return receiver != null;
    }

    /** Sends what was asked for (waiting at most two seconds), then stops both threads and closes the connections. */
    @Override
    public void close() {
        Thread listening;
        synchronized (this) {
            closed = true;
            listening = receiver;
        }
        LockSupport.unpark(sender);
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

    private record Registration(String channel, CountDownLatch tried) {
    }

    /** A channel name is a SQL identifier here: lower case letters, digits and underscores only. */
    private static String identifier(String channel) {
        if (channel == null || !channel.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("a channel is a lower-case identifier, was " + channel);
        }
        return channel;
    }

    // ------------------------------------------------------------------------------------------------ sending

    private void sendLoop() {
        while (true) {
            boolean stopping = closed;
            long now = System.nanoTime();
            long wakeAt = Long.MAX_VALUE;
            Map<Channel, List<String>> batch = new LinkedHashMap<>();
            for (Channel c : channels) {
                if (!c.requested.get()) {
                    continue;
                }
                if (!stopping && now - c.nextAllowedNanos < 0) {
                    wakeAt = Math.min(wakeAt, c.nextAllowedNanos);
                    continue;
                }
                c.requested.set(false);
                List<String> payloads = c.outbox.take();
                if (!payloads.isEmpty()) {
                    batch.put(c, payloads);
                    c.nextAllowedNanos = now + c.windowNanos;
                }
            }
            if (!batch.isEmpty()) {
                send(batch);
                continue; // a channel may have been asked again meanwhile, or have more
            }
            if (stopping) {
                break;
            }
            if (wakeAt == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, Math.max(1, wakeAt - System.nanoTime()));
            }
        }
        sendingPid = 0;
        closeQuietly(sending);
        sending = null;
    }

    /** The connection's backend process id; 0 where the driver cannot tell (then every echo is heard). */
    private static int backendPid(Connection connection) {
        try {
            return connection.unwrap(PGConnection.class).getBackendPID();
        } catch (SQLException | RuntimeException e) {
            return 0;
        }
    }

    /** One transaction for the whole batch (one statement on its own: no transaction). Sender thread only. */
    private void send(Map<Channel, List<String>> batch) {
        int statements = batch.values().stream().mapToInt(List::size).sum();
        for (int round = 1; round <= 2; round++) {
            try {
                if (sending == null) {
                    sending = senders.get();
                    sending.setAutoCommit(true);
                    if (!pooledSender) {
                        DedicatedConnections.commitWithoutWaitingForTheFlush(sending);
                        sendingPid = backendPid(sending);
                    }
                }
                if (onlyWakeUps(batch) && !othersListen()) {
                    skippedAlone.set(true);
                    // an announcement after the check and before the flag was seen by nobody: send after all
                    if (!othersJoined.get()) {
                        batch.forEach((c, payloads) -> c.skipped.addAndGet(payloads.size()));
                        return;
                    }
                }
                sending.setAutoCommit(statements == 1);
                for (Map.Entry<Channel, List<String>> entry : batch.entrySet()) {
                    for (String payload : entry.getValue()) {
                        notify(entry.getKey().name, payload);
                    }
                }
                if (statements > 1) {
                    sending.commit();
                }
                batch.forEach((c, payloads) -> c.sent.addAndGet(payloads.size()));
                if (sendOnly) {
                    batch.forEach(this::deliverOwn);
                }
                return;
            } catch (SQLException | RuntimeException e) {
                sendingPid = 0;
                closeQuietly(sending);
                sending = null;
                if (round == 2) {
                    LOG.warn("could not NOTIFY {}: {}", batch.keySet().stream().map(c -> c.name).toList(),
                            e.getMessage());
                    batch.forEach((c, payloads) -> c.outbox.lost(payloads, e));
                }
            }
        }
    }

    /** Whether the batch holds only {@code forgeflow_due} wake-ups (no payload: they are for workers only). */
    private static boolean onlyWakeUps(Map<Channel, List<String>> batch) {
        for (Map.Entry<Channel, List<String>> entry : batch.entrySet()) {
            if (!entry.getKey().name.equals(PostgresWorkSignal.CHANNEL)
                    || entry.getValue().stream().anyMatch(p -> !p.isEmpty())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a session other than this notifier's listening one holds the listeners' lock (sender thread only). An
     * announcement of a new listener makes it yes at once; a failed check says yes (one NOTIFY too many is harmless).
     */
    private boolean othersListen() {
        long now = System.nanoTime();
        if (othersJoined.getAndSet(false)) {
            othersListen = true;
            othersChecked = true;
            othersCheckedNanos = now;
            return true;
        }
        if (othersChecked && now - othersCheckedNanos < recheckNanos) {
            return othersListen;
        }
        boolean answer = true;
        try {
            sending.setAutoCommit(true);
            try (PreparedStatement others = sending.prepareStatement(OTHERS_LISTEN)) {
                others.setInt(1, listeningPid);
                try (ResultSet r = others.executeQuery()) {
                    answer = !r.next() || r.getBoolean(1);
                }
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("could not tell whether another node listens ({}): sending", e.getMessage());
        }
        othersListen = answer;
        othersChecked = true;
        othersCheckedNanos = now;
        return answer;
    }

    private void notify(String channel, String payload) throws SQLException {
        if (payload.isEmpty() && channel.equals(PostgresWorkSignal.CHANNEL)) {
            try (Statement statement = sending.createStatement()) {
                statement.execute(NOTIFY_DUE);
            }
            return;
        }
        try (PreparedStatement notify = sending.prepareStatement(NOTIFY)) {
            notify.setString(1, channel);
            notify.setString(2, payload);
            notify.execute();
        }
    }

    // ------------------------------------------------------------------------------------------------ listening

    private void listenLoop() {
        Connection connection = null;
        boolean everListened = false;
        long backoff = 100;
        while (!closed) {
            if (connection == null) {
                try {
                    connection = connections.get();
                    connection.setAutoCommit(true);
                    listeningPid = backendPid(connection);
                    listened.clear();
                    for (String channel : listeners.keySet()) {
                        listen(connection, channel);
                    }
                    backoff = 100;
                    if (everListened) {
                        LOG.info("LISTEN {} re-established", listened);
                        listeners.values().forEach(forChannel -> forChannel.forEach(PostgresNotifier::reconnected));
                    }
                    everListened = true;
                } catch (SQLException | RuntimeException e) {
                    closeQuietly(connection);
                    connection = null;
                    listened.clear();
                    if (backoff >= MAX_BACKOFF_MILLIS || !everListened) {
                        LOG.warn("could not LISTEN: {}; retrying (workers poll meanwhile)", e.getMessage());
                    }
                    everListened = true; // whatever was sent meanwhile is missed: the next success says so
                    settleRegistrations();
                    if (!sleep(backoff)) {
                        break;
                    }
                    backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                    continue;
                }
            }
            try {
                Registration registration;
                while ((registration = toListen.poll()) != null) {
                    if (!listened.contains(registration.channel())) {
                        listen(connection, registration.channel());
                    }
                    registration.tried().countDown();
                }
                PGNotification[] batch = connection.unwrap(PGConnection.class).getNotifications(SLICE_MILLIS);
                if (batch != null && batch.length > 0) {
                    deliver(batch);
                }
            } catch (SQLException e) {
                if (!closed) {
                    LOG.warn("the LISTEN connection failed ({}); reconnecting", e.getMessage());
                }
                closeQuietly(connection);
                connection = null;
                listened.clear();
            }
        }
        settleRegistrations();
        closeQuietly(connection);
    }

    private void listen(Connection connection, String channel) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            if (channel.equals(PostgresWorkSignal.CHANNEL)) {
                // the lock before the LISTEN (a sender that sees it early sends one too many), the announcement after
                statement.execute(TAKE_LISTENER_LOCK);
                statement.execute(LISTEN_DUE);
                statement.execute(LISTEN_LISTENERS);
                statement.execute(NOTIFY_LISTENERS);
            } else {
                statement.execute(LISTEN_RUNS);
            }
        }
        listened.add(channel);
    }

    /** No connection now: callers of {@link #listen} waiting for the first try stop waiting. */
    private void settleRegistrations() {
        for (Registration registration : toListen) {
            registration.tried().countDown();
        }
    }

    private void deliver(PGNotification[] batch) {
        int own = sendingPid;
        Map<String, List<PGNotification>> byChannel = new LinkedHashMap<>();
        for (PGNotification notification : batch) {
            if (notification.getName().equals(LISTENERS_CHANNEL)) {
                if (notification.getPID() != listeningPid) {
                    anotherListens();
                }
                continue;
            }
            byChannel.computeIfAbsent(notification.getName(), k -> new ArrayList<>()).add(notification);
        }
        byChannel.forEach((channel, notifications) -> {
            List<String> all = notifications.stream().map(PGNotification::getParameter).toList();
            List<String> others = own == 0 ? all : notifications.stream().filter(n -> n.getPID() != own)
                    .map(PGNotification::getParameter).toList();
            for (Listener listener : listeners.getOrDefault(channel, List.of())) {
                List<String> heard = listener.hearsOwnSends() ? all : others;
                if (heard.isEmpty()) {
                    continue;
                }
                try {
                    listener.notified(heard);
                } catch (RuntimeException e) {
                    LOG.warn("a listener of {} failed: {}", channel, e.toString());
                }
            }
        });
    }

    /** Another node started listening: it gets a wake-up now if one was not sent while this node was alone. */
    private void anotherListens() {
        othersJoined.set(true);
        if (!skippedAlone.getAndSet(false)) {
            return;
        }
        for (Channel c : channels) {
            if (c.name.equals(PostgresWorkSignal.CHANNEL)) {
                c.request();
            }
        }
    }

    /** A sending-only notifier's own sends, to its listeners that hear them. */
    private void deliverOwn(Channel channel, List<String> payloads) {
        for (Listener listener : listeners.getOrDefault(channel.name, List.of())) {
            if (!listener.hearsOwnSends()) {
                continue;
            }
            try {
                listener.notified(payloads);
            } catch (RuntimeException e) {
                LOG.warn("a listener of {} failed: {}", channel.name, e.toString());
            }
        }
    }

    private static void reconnected(Listener listener) {
        try {
            listener.reconnected();
        } catch (RuntimeException e) {
            LOG.warn("a listener failed: {}", e.toString());
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
            LOG.debug("closing a notification connection failed: {}", e.getMessage());
        }
    }
}
