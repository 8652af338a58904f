package io.forgeflow.adapter.postgres;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A node's half of {@code enqueue()}'s wake-ups without NOTIFY (issue 40; the protocol is in
 * {@code db/functions/forgeflow_sql_wakeups.sql}). PostgreSQL serialises the commits of notifying transactions, so an
 * application whose transactions each enqueue a job waited, commit after commit, on everyone else's.
 *
 * <p>A node that hears {@code enqueue()}'s wake-ups often (two within {@link #ENTER_GAP}), or finds another node's
 * promise standing (checked every {@link #IDLE_CHECK} while it does not watch), <b>watches</b>: every tick it calls
 * {@code forgeflow_watch_sql}, which keeps its promise to look again, and wakes its claimers when a silent enqueue
 * began since the last tick, is open, or was open then, so that a run enqueued without a NOTIFY is claimed within a
 * tick of its commit (and an idle watch costs no claim). While the promise stands {@code enqueue()} sends
 * nothing. It stops promising once no silent enqueue is open and none came for {@link #QUIET}, and stops watching
 * only when no promise stands and none is open: every silent enqueue has then ended, and its claimers look once more.
 * Nodes without the worker role only <b>observe</b>: they make no promise and wake nobody; they tell this node's
 * event streams to re-read (at most once a second) when runs were enqueued without their {@code pending} event.
 *
 * <p>A failed tick is logged and retried a second later: its promise runs out meanwhile, so {@code enqueue()}
 * notifies again, and the claimers poll as they always do. Ticks use the node's pool, one short statement each.
 */
public final class SqlEnqueueWatch implements Closeable {
    /** Two of enqueue()'s wake-ups this close together start a watch. */
    static final Duration ENTER_GAP = Duration.ofMillis(200);
    /** While it watches: a worker node's tick (the longest a silent enqueue waits after its commit). */
    static final Duration TICK = Duration.ofMillis(5);
    /** While it watches: an observing node's tick. */
    static final Duration OBSERVE_TICK = Duration.ofMillis(100);
    /** How far ahead a worker node promises to look again. */
    static final Duration PROMISE = Duration.ofMillis(200);
    /** With no silent enqueue for this long (and none open), a worker node stops promising. */
    static final Duration QUIET = Duration.ofSeconds(1);
    /** While it does not watch, how often a node looks for another's promise. */
    static final Duration IDLE_CHECK = Duration.ofSeconds(1);
    /** At most one event-stream reset per this long. */
    static final Duration RESET_EVERY = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(SqlEnqueueWatch.class);
    private static final String TICK_SQL = "SELECT open, silent, watched FROM forgeflow_watch_sql(:promise)";

    /** What one tick found. */
    record Tick(boolean open, long silent, boolean watched) {
    }

    private final Jdbi jdbi;
    private final boolean promises;
    private final Runnable wake;
    private final Runnable missedEvents;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition heard = lock.newCondition();
    private final AtomicLong watches = new AtomicLong();
    private long lastHeardNanos = Long.MIN_VALUE;
    private boolean start;
    private volatile boolean watching;
    private volatile boolean closed;

    /**
     * @param jdbi         the node's pool
     * @param promises     a worker node: it promises, and wakes {@code wake} at the ticks that may find a run
     * @param wake         wakes this node's claimers
     * @param missedEvents tells this node's event streams that {@code pending} changes were not sent
     */
    public SqlEnqueueWatch(Jdbi jdbi, boolean promises, Runnable wake, Runnable missedEvents) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.promises = promises;
        this.wake = Objects.requireNonNull(wake, "wake");
        this.missedEvents = Objects.requireNonNull(missedEvents, "missedEvents");
        this.thread = new Thread(this::run, "forgeflow-sql-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** One of enqueue()'s wake-ups arrived (the listening thread: no I/O here). */
    public void heardEnqueue() {
        long now = System.nanoTime();
        lock.lock();
        try {
            if (lastHeardNanos != Long.MIN_VALUE && now - lastHeardNanos <= ENTER_GAP.toNanos()) {
                start = true;
                heard.signalAll();
            }
            lastHeardNanos = now;
        } finally {
            lock.unlock();
        }
    }

    /** Whether it watches now (metrics, tests). */
    public boolean watching() {
        return watching;
    }

    /** How many watches it has started (a metric). */
    public long watchesStarted() {
        return watches.get();
    }

    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            heard.signalAll();
        } finally {
            lock.unlock();
        }
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long lastSilent = -1;
        long lastResetNanos = System.nanoTime() - RESET_EVERY.toNanos();
        while (!closed) {
            try {
                if (!awaitStart()) {
                    continue;
                }
                Tick t = tick(false);
                if (lastSilent < 0) {
                    lastSilent = t.silent(); // what came before this node first looked is not its to report
                }
                boolean requested = startRequested();
                if (!requested && !t.watched()) {
                    continue; // an idle check that found no promise
                }
                watching = true;
                watches.incrementAndGet();
                boolean promising = promises;
                boolean wasOpen = false;
                long lastSilentNanos = System.nanoTime();
                while (!closed) {
                    t = tick(promising);
                    long now = System.nanoTime();
                    boolean more = t.silent() != lastSilent;
                    if (more) {
                        lastSilent = t.silent();
                        lastSilentNanos = now;
                        if (now - lastResetNanos >= RESET_EVERY.toNanos()) {
                            lastResetNanos = now;
                            missedEvents.run();
                        }
                    }
                    // a silent enqueue began since the last tick, is open, or was open then (it may have committed)
                    if (promises && (more || t.open() || wasOpen)) {
                        wake.run();
                    }
                    wasOpen = t.open();
                    promising = promises && (t.open() || now - lastSilentNanos < QUIET.toNanos());
                    if (!promising && !t.open() && !t.watched()) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.sleep((promises ? TICK : OBSERVE_TICK).toNanos());
                }
                if (promises) {
                    wake.run(); // after the last silent enqueue ended
                }
                watching = false;
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (RuntimeException e) {
                watching = false;
                LOG.debug("the SQL enqueue watch could not reach the database ({}); trying again in {}", e.toString(),
                        IDLE_CHECK);
                sleepQuietly(IDLE_CHECK);
            }
        }
    }

    /** Waits for a start or the next idle check; false when closed. */
    private boolean awaitStart() throws InterruptedException {
        lock.lock();
        try {
            long left = IDLE_CHECK.toNanos();
            while (!start && !closed && left > 0) {
                left = heard.awaitNanos(left);
            }
            return !closed;
        } finally {
            lock.unlock();
        }
    }

    private boolean startRequested() {
        lock.lock();
        try {
            boolean s = start;
            start = false;
            return s;
        } finally {
            lock.unlock();
        }
    }

    private Tick tick(boolean promise) {
        return jdbi.withHandle(h -> h.createQuery(TICK_SQL).bind("promise", promise ? (int) PROMISE.toMillis() : 0)
                .map((rs, ctx) -> new Tick(rs.getBoolean("open"), rs.getLong("silent"), rs.getBoolean("watched")))
                .one());
    }

    private static void sleepQuietly(Duration d) {
        try {
            TimeUnit.NANOSECONDS.sleep(d.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
