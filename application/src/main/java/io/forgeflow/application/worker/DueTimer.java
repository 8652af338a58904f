package io.forgeflow.application.worker;

import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.domain.port.RunQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The claimer's timer: how long it waits after a round that left room (unless woken first). The poll interval, or
 * less when a run this worker could take becomes due sooner, so that a run due later starts on time rather than at
 * the next poll. The earliest due time is read from the queue ({@link RunQueue#nextDueIn}) at most once per poll
 * interval, and again as soon as the time read before has come (one read per distinct due time); this worker's own
 * retries arm it directly ({@link #retryDueAfter}). A run scheduled later by someone else is therefore known within
 * one poll interval of its creation; one due sooner than that may start up to one poll interval late (runs due now
 * wake the worker through the work signal instead).
 *
 * <p>Owns the due times; the claimer thread calls {@link #idleWait()}, the acknowledger {@link #retryDueAfter}.
 */
final class DueTimer {
    private static final Logger LOG = LoggerFactory.getLogger(DueTimer.class);
    static final long NO_DUE_TIME = Long.MAX_VALUE;
    /** A due time already passed (or a clock tie) still waits this long: the claim that found nothing just ran. */
    private static final long MIN_WAIT_NANOS = 1_000_000L;

    private final RunQueue queue;
    private final ExecutorRegistry executors;
    private final List<QueueLane> lanes;
    private final Duration pollInterval;
    private final Ticker ticker;
    private final WakeUp wakeUp;
    /** When (ticker) the earliest run the queue told of becomes due; claimer thread only, as the next two. */
    private long queriedDueNanos = NO_DUE_TIME;
    private long dueReadNanos;
    private boolean dueEverRead;
    /** When (ticker) the soonest retry this worker acknowledged becomes due. */
    private final AtomicLong retryDueNanos = new AtomicLong(NO_DUE_TIME);

    DueTimer(RunQueue queue, ExecutorRegistry executors, List<QueueLane> lanes, Duration pollInterval, Ticker ticker,
             WakeUp wakeUp) {
        this.queue = queue;
        this.executors = executors;
        this.lanes = lanes;
        this.pollInterval = pollInterval;
        this.ticker = ticker;
        this.wakeUp = wakeUp;
    }

    /** The wait after a round that left room: the poll interval, or until the earliest known due time. */
    Duration idleWait() {
        long poll = pollInterval.toNanos();
        long now = ticker.nanos();
        if (!dueEverRead || now - dueReadNanos >= poll || (queriedDueNanos != NO_DUE_TIME && now - queriedDueNanos >= 0)) {
            readNextDue(now);
        }
        long retry = retryDueNanos.get();
        if (retry != NO_DUE_TIME && now - retry >= 0) {
            retryDueNanos.compareAndSet(retry, NO_DUE_TIME); // it came: the round that just ran could claim it
            retry = NO_DUE_TIME;
        }
        long due = earlier(queriedDueNanos, retry);
        if (due == NO_DUE_TIME) {
            return pollInterval;
        }
        return Duration.ofNanos(Math.max(0, Math.min(poll, due - now)));
    }

    /** A run this worker gave back for a retry becomes due after {@code delay}: wake for it, not at the next poll. */
    void retryDueAfter(Duration delay) {
        long at = ticker.nanos() + Math.max(delay.toNanos(), MIN_WAIT_NANOS);
        retryDueNanos.accumulateAndGet(at, DueTimer::earlier);
        if (delay.compareTo(pollInterval) < 0) {
            wakeUp.wake(); // the claimer recomputes its wait (a later retry is seen when the current wait ends anyway)
        }
    }

    static long earlier(long a, long b) {
        if (a == NO_DUE_TIME) {
            return b;
        }
        return b == NO_DUE_TIME || a - b <= 0 ? a : b;
    }

    /** Reads the earliest due time of each lane's runs not due yet (a failure is logged: the worker then polls). */
    private void readNextDue(long now) {
        dueEverRead = true;
        dueReadNanos = now;
        Duration earliest = null;
        try {
            for (QueueLane lane : lanes) {
                Optional<Duration> in = queue.nextDueIn(executors.enabledNames(), lane.queues());
                if (in.isPresent() && (earliest == null || in.get().compareTo(earliest) < 0)) {
                    earliest = in.get();
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("could not read when the next run is due ({}); polling", e.toString());
            earliest = null;
        }
        queriedDueNanos = earliest == null ? NO_DUE_TIME : now + Math.max(earliest.toNanos(), MIN_WAIT_NANOS);
    }
}
