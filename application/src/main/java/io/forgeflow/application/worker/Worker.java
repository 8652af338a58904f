package io.forgeflow.application.worker;

import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.support.RunLogContext;
import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/**
 * Claims due runs into free execution slots, executes them, acknowledges the outcome (fenced by worker and
 * attempt), heartbeats its leases, and drains on shutdown.
 *
 * <p>Threads: a claimer (wakes on {@link WorkSignal}, on a freed slot, or every poll interval; under load it paces its
 * claims, {@link BatchPacer}), an acknowledger (sends every finished attempt in batches: whatever accumulated while the
 * previous batch was written and during a pause after it proportional to its duration), a
 * heartbeater (extends all leases in one statement, notices lost leases and operator cancellations), a bridge
 * that turns the database's wake-up signal into a local one, and {@code concurrency} execution threads. Each
 * step is also callable on its own ({@link #claimOnce()}, {@link #heartbeatOnce()}, {@link #flushAcknowledgements()},
 * {@link #checkCancellationsOnce()}) so tests drive it without sleeping.
 *
 * <p>Safety: once the database has been unreachable for so long that a run's lease may have expired, the worker
 * stops that run's side effects (cancels it) rather than race a new owner; and every acknowledgement is fenced, so
 * a late one changes nothing.
 */
public final class Worker {
    static final String REASON_OPERATOR = "cancelled by an operator";
    static final String REASON_LEASE_LOST = "lease lost: another worker may own this run now";
    static final String REASON_SHUTDOWN = "worker shutting down: run released back to the queue";
    static final String REASON_WATCHDOG = "timed out: the executor did not stop by itself";
    static final String REASON_UNTRUSTED = "lease can no longer be trusted: no heartbeat confirmed it in time";
    static final String REASON_RECLAIMED = "claimed again as a newer attempt: this attempt is stopped first";

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final Duration WATCHDOG_GRACE = Duration.ofSeconds(10);

    private final WorkerSettings settings;
    private final RunQueue queue;
    private final ExecutorRegistry executors;
    private final WorkSignal signal;
    private final RandomGenerator random;
    private final WorkerListener listener;

    /** Keyed by run and attempt: a run claimed again while its older attempt still ends has two entries. */
    private final Map<RunFence, InFlight> inFlight = new ConcurrentHashMap<>();
    private final Ticker ticker;
    /**
     * Claims begun, and claims whose runs are registered or that failed. One claimer makes them one after another, so
     * once {@code claimsSettled} reaches a count of {@code claimsBegun}, every claim begun by then has settled.
     */
    private final AtomicInteger claimsBegun = new AtomicInteger();
    private final AtomicInteger claimsSettled = new AtomicInteger();
    /** Runs a heartbeat found under this worker's id but not held, waiting for the claims begun before it to settle. */
    private volatile Unheld unheldWaiting;
    private final List<QueueLane> lanes;
    /** Runs held per lane (executing, or claimed and about to start). */
    private final AtomicInteger[] heldPerLane;
    private final LinkedBlockingQueue<Acknowledgement> pendingAcks = new LinkedBlockingQueue<>();
    /** The job of each run whose acknowledgement waits to be sent, for the log lines about a discarded one. */
    private final Map<RunFence, String> ackJobIds = new ConcurrentHashMap<>();
    private final List<RunFence> toRelease = new ArrayList<>();
    private final AtomicInteger busy = new AtomicInteger();
    /** Acknowledgements the acknowledger has taken from {@link #pendingAcks} and is writing now. */
    private final AtomicInteger sending = new AtomicInteger();
    /** Moving average of attempt durations, in milliseconds (NaN until the first attempt ends). */
    private volatile double averageMillis = Double.NaN;
    private final Object wakeLock = new Object();
    /** Paces the claimer under load; only the claimer thread uses it. */
    private final BatchPacer claimPacer;
    /** Paces the acknowledger; only the acknowledger thread uses it. */
    private final BatchPacer ackPacer;
    private boolean woken;
    /**
     * Whether the claimer's last round was held back by room (a lane with no room, a lane whose room filled up, or
     * results waiting to be written): only then does a freed slot or a written batch of results wake it. Otherwise
     * the last round took every due run it could see, and a freed slot makes no run due; waking for it cost an empty
     * claim per finished run. Set before each round, so a slot freed while a round runs still wakes the next one.
     */
    private volatile boolean roomWanted = true;
    /**
     * When (System.nanoTime) the earliest run not due yet that the queue told of becomes due ({@link RunQueue#nextDueIn});
     * NO_DUE_TIME when none. Only the claimer thread uses it and the two fields after it.
     */
    private long queriedDueNanos = NO_DUE_TIME;
    /** When the due time was last read from the queue (System.nanoTime). */
    private long dueReadNanos;
    private boolean dueEverRead;
    /** When the soonest retry this worker acknowledged becomes due (System.nanoTime); NO_DUE_TIME when none. */
    private final java.util.concurrent.atomic.AtomicLong retryDueNanos =
            new java.util.concurrent.atomic.AtomicLong(NO_DUE_TIME);

    /** The execution threads, one pool per queue lane (as many threads as the lane has slots). */
    private final ExecutorService[] slots;
    private final ScheduledExecutorService watchdog;
    private volatile boolean accepting = true;
    private volatile boolean running;
    private final List<Thread> threads = new ArrayList<>();

    public Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
                  RandomGenerator random, WorkerListener listener) {
        this(settings, queue, executors, signal, random, listener,
                new BatchPacer(PACE_RATIO, PACE_CAP_NANOS, PACE_CLAIMS_ABOVE_PER_SECOND),
                new BatchPacer(PACE_RATIO, PACE_CAP_NANOS, 0), Ticker.SYSTEM);
    }

    /** With the claimer's and the acknowledger's pacers given (tests). */
    Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
           RandomGenerator random, WorkerListener listener, BatchPacer claimPacer, BatchPacer ackPacer) {
        this(settings, queue, executors, signal, random, listener, claimPacer, ackPacer, Ticker.SYSTEM);
    }

    /** With the pacers and the ticker of the lease deadlines given (tests). */
    Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
           RandomGenerator random, WorkerListener listener, BatchPacer claimPacer, BatchPacer ackPacer, Ticker ticker) {
        this.ticker = ticker;
        this.claimPacer = claimPacer;
        this.ackPacer = ackPacer;
        this.settings = settings;
        this.queue = queue;
        this.executors = executors;
        this.signal = signal;
        this.random = random;
        this.listener = listener == null ? WorkerListener.NONE : listener;
        this.lanes = settings.lanes();
        this.heldPerLane = new AtomicInteger[lanes.size()];
        for (int i = 0; i < heldPerLane.length; i++) {
            heldPerLane[i] = new AtomicInteger();
        }
        AtomicInteger n = new AtomicInteger();
        this.slots = new ExecutorService[lanes.size()];
        for (int i = 0; i < lanes.size(); i++) {
            slots[i] = Executors.newFixedThreadPool(lanes.get(i).slots(), r -> daemon(r, "ff-exec-" + n.incrementAndGet()));
        }
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "ff-watchdog"));
    }

    public String workerId() {
        return settings.workerId();
    }

    /** Runs this worker holds: executing, or claimed and about to start. Zero once every claimed run has ended. */
    public int busySlots() {
        return inFlight.size();
    }

    /** Starts the background threads. */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        threads.add(loop("ff-claimer", this::claimLoop));
        threads.add(loop("ff-acknowledger", this::ackLoop));
        threads.add(loop("ff-heartbeat", this::heartbeatLoop));
        threads.add(loop("ff-wakeups", this::signalLoop));
        threads.forEach(Thread::start);
        long tick = deadlineTick().toMillis();
        watchdog.scheduleWithFixedDelay(this::enforceLeaseDeadlines, tick, tick, TimeUnit.MILLISECONDS);
        LOG.info("worker {} started: {} slots ({}), executors {}, lease {}, heartbeat every {}", settings.workerId(),
                settings.concurrency(), lanes, executors.enabledNames(), settings.lease(), settings.heartbeatInterval());
    }

    /**
     * Claims due runs into the free slots of each queue lane and starts executing them. Returns how many were claimed.
     */
    public int claimOnce() {
        return claimRound().claimed;
    }

    /** One claim per lane with room; whether some lane's room filled up (there may be more due). */
    private ClaimRound claimRound() {
        roomWanted = true;
        int total = 0;
        boolean filled = false;
        boolean limited = false;
        for (int lane = 0; lane < lanes.size(); lane++) {
            int room = roomToClaim(lane);
            if (!accepting) {
                continue;
            }
            if (room <= 0) {
                limited = true;
                continue;
            }
            long askedNanos = ticker.nanos();
            claimsBegun.incrementAndGet();
            List<Run> claimed;
            try {
                claimed = queue.claim(settings.workerId(), executors.enabledNames(), lanes.get(lane).queues(),
                        room, settings.lease()); // a failure leaves roomWanted set: the next round decides
                listener.claimed(claimed);
                for (Run run : claimed) {
                    start(run, lane, askedNanos);
                }
            } finally {
                claimsSettled.incrementAndGet();
            }
            total += claimed.size();
            filled |= !claimed.isEmpty() && claimed.size() == room;
        }
        roomWanted = limited || filled;
        return new ClaimRound(total, filled, limited);
    }

    /**
     * One claim round: how many runs it took, whether some lane's room filled up (there may be more due), and whether
     * some lane had no room at all. A round that is neither took every due run it could see.
     */
    private record ClaimRound(int claimed, boolean filled, boolean limited) {
        boolean exhausted() {
            return !filled && !limited;
        }
    }

    /**
     * Extends the leases of the attempts this worker holds (executing, or ended with a result not written yet), and
     * only those; cancels runs whose lease was lost or that an operator cancelled. A run the database says is running
     * under this worker's id but that it does not hold (a claim whose reply was lost) is released to the queue when
     * no claim overlapped this heartbeat, else left to expire. A heartbeat that succeeds moves each confirmed attempt's
     * local deadline ({@link #enforceLeaseDeadlines()}); one that fails or hangs moves none.
     */
    public void heartbeatOnce() {
        long startedNanos = ticker.nanos();
        unheldWaiting = releaseSettled(unheldWaiting);
        Set<RunFence> held = held();
        RunQueue.Heartbeat beat;
        try {
            beat = queue.heartbeat(settings.workerId(), held, settings.lease());
        } catch (RuntimeException e) {
            LOG.warn("heartbeat failed ({}); {} run(s) held, each stopped once its lease can no longer be trusted",
                    e.toString(), inFlight.size());
            return;
        }
        long trustedUntil = startedNanos + trustedNanos();
        for (InFlight f : inFlight.values()) {
            if (beat.extended().contains(f.fence)) {
                f.confirm(trustedUntil);
            } else if (f.claimedNanos - startedNanos < 0 && !f.finished && !f.leaseLost) {
                f.leaseLost = true;
                f.cancellation.cancel(REASON_LEASE_LOST);
                try (RunLogContext ignored = logContext(f.run)) {
                    LOG.warn("run {} attempt {}: lease lost (the heartbeat no longer finds it held by {}); stopping it",
                            f.run.id(), f.run.attempt(), settings.workerId());
                }
            }
        }
        cancelRequested(beat.cancelRequested());
        // a claim that committed one of these runs began before the heartbeat ended: wait for the claims begun by now
        unheldWaiting = beat.unheld().isEmpty() ? null : new Unheld(beat.unheld(), claimsBegun.get());
        unheldWaiting = releaseSettled(unheldWaiting);
    }

    /** Runs seen under this worker's id but not held, and how many claims had begun when they were seen. */
    private record Unheld(Set<RunFence> fences, int claimsBegun) {
    }

    /** The attempts whose leases this worker vouches for: executing or about to, or ended and waiting to be written. */
    private Set<RunFence> held() {
        Set<RunFence> held = new java.util.HashSet<>();
        for (InFlight f : inFlight.values()) {
            if (!f.leaseLost) {
                held.add(f.fence);
            }
        }
        held.addAll(ackJobIds.keySet());
        synchronized (toRelease) {
            held.addAll(toRelease);
        }
        return held;
    }

    /**
     * Gives back runs held under this worker's id that it never received (a lost claim reply) once every claim begun
     * before they were seen has settled: none of them can still arrive. Returns them still waiting otherwise.
     */
    private Unheld releaseSettled(Unheld unheld) {
        if (unheld == null) {
            return null;
        }
        if (claimsSettled.get() - unheld.claimsBegun() < 0) {
            return unheld;
        }
        Set<RunFence> lost = new java.util.HashSet<>(unheld.fences());
        lost.removeAll(held());
        if (!lost.isEmpty()) {
            try {
                Set<RunFence> done = queue.release(lost);
                LOG.warn("worker {}: released {} run(s) running under its id that it never received (a claim whose "
                        + "reply was lost)", settings.workerId(), done.size());
            } catch (RuntimeException e) {
                LOG.warn("worker {}: could not release {} run(s) it never received ({}); their leases expire",
                        settings.workerId(), lost.size(), e.toString());
            }
        }
        return null;
    }

    /**
     * Stops every attempt whose local lease deadline has passed: the last heartbeat that confirmed it (or its claim)
     * started more than the lease minus one heartbeat interval ago, on this worker's monotonic clock. It runs on its
     * own timer, so a heartbeat that throws, hangs or is never sent stops the attempt before another worker can claim
     * it; the attempt's result is then discarded, never acknowledged. Returns how many it stopped.
     */
    int enforceLeaseDeadlines() {
        long now = ticker.nanos();
        int stopped = 0;
        for (InFlight f : inFlight.values()) {
            if (!f.finished && !f.leaseLost && f.expired(now)) {
                f.leaseLost = true;
                f.cancellation.cancel(REASON_UNTRUSTED);
                stopped++;
                try (RunLogContext ignored = logContext(f.run)) {
                    LOG.warn("run {} attempt {}: stopping it, its lease can no longer be trusted", f.run.id(),
                            f.run.attempt());
                }
            }
        }
        return stopped;
    }

    /** How long a confirmation is trusted: the lease less one heartbeat interval of margin. */
    private long trustedNanos() {
        return settings.lease().minus(settings.heartbeatInterval()).toNanos();
    }

    /** How often local lease deadlines are checked: a tenth of the heartbeat interval, within 20 ms to 1 s. */
    Duration deadlineTick() {
        long millis = Math.max(20, Math.min(1_000, settings.heartbeatInterval().toMillis() / 10));
        return Duration.ofMillis(millis);
    }

    /** Stops runs that an operator asked to cancel. */
    public void checkCancellationsOnce() {
        if (inFlight.isEmpty()) {
            return;
        }
        cancelRequested(queue.cancellationsFor(settings.workerId()));
    }

    /** Sends every finished attempt waiting for acknowledgement, in one batch. Returns how many were sent. */
    public int flushAcknowledgements() {
        List<Acknowledgement> batch = new ArrayList<>();
        pendingAcks.drainTo(batch, MAX_ACK_BATCH);
        if (batch.isEmpty()) {
            return 0;
        }
        send(batch);
        return batch.size();
    }

    /**
     * Drains: stops claiming, lets in-flight runs finish for up to the drain grace, then stops the rest and
     * releases them back to the queue (not counted against their attempts), flushes acknowledgements, and stops.
     */
    public void stop() {
        accepting = false;
        wake();
        long deadline = System.nanoTime() + settings.drainGrace().toNanos();
        if (!inFlight.isEmpty()) {
            LOG.info("worker {} draining: waiting up to {} for {} running run(s)", settings.workerId(),
                    settings.drainGrace(), inFlight.size());
        }
        waitUntilIdle(deadline);
        if (!inFlight.isEmpty()) {
            LOG.warn("worker {}: drain grace over; stopping {} run(s) and releasing them to the queue",
                    settings.workerId(), inFlight.size());
            for (InFlight f : inFlight.values()) {
                f.released = true;
                f.cancellation.cancel(REASON_SHUTDOWN);
            }
            waitUntilIdle(System.nanoTime() + Duration.ofSeconds(15).toNanos());
        }
        running = false;
        wake();
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            while (flushAcknowledgements() > 0) {
                // until nothing is left
            }
        } catch (RuntimeException e) {
            LOG.error("worker {}: {} acknowledgement(s) could not be written before stopping; those runs return to the "
                    + "queue when their leases expire", settings.workerId(), pendingAcks.size() + 1, e);
            pendingAcks.clear();
        }
        List<RunFence> release;
        synchronized (toRelease) {
            release = new ArrayList<>(toRelease);
            toRelease.clear();
        }
        for (InFlight f : inFlight.values()) {
            release.add(f.fence); // an executor that ignored its cancellation: give the run back anyway
        }
        if (!release.isEmpty()) {
            try {
                Set<RunFence> done = queue.release(release);
                LOG.info("worker {} released {} run(s) back to the queue", settings.workerId(), done.size());
            } catch (RuntimeException e) {
                LOG.error("worker {} could not release {} run(s); they return when their leases expire",
                        settings.workerId(), release.size(), e);
            }
        }
        for (ExecutorService pool : slots) {
            pool.shutdownNow();
        }
        watchdog.shutdownNow();
        LOG.info("worker {} stopped", settings.workerId());
    }

    /**
     * How many runs to claim now: every idle execution slot and, while attempts are short (under
     * {@value #PREFETCH_BELOW_MILLIS} ms on average), one more batch held ready, so that the next claim's round trip
     * overlaps execution instead of idling the slots; three more while they take under
     * {@value #DEEP_PREFETCH_BELOW_MILLIS} ms (a slot then finishes several runs during one claim's round trip, and
     * bigger claims cost the database less per run: the no-op drain went from 8,840 to 10,630 runs/s, mean of four
     * runs each). Long runs are never prefetched: a run held ready behind a long one would wait while another worker
     * idles. The ready batches are refilled only once half a batch of room is free, so claims stay batched under load.
     */
    int roomToClaim() {
        return roomToClaim(0);
    }

    /** {@link #roomToClaim()} for one queue lane: its slots, and the runs held for it. */
    int roomToClaim(int lane) {
        if (unacknowledged() >= maxUnacknowledged()) {
            return 0; // the database is behind with the results: claiming more would only lengthen the backlog
        }
        int slotsCount = lanes.get(lane).slots();
        int held = heldPerLane[lane].get();
        double average = averageMillis;
        int batches = Double.isNaN(average) || average >= PREFETCH_BELOW_MILLIS ? 1
                : average < DEEP_PREFETCH_BELOW_MILLIS ? 4 : 2;
        int capacity = batches * slotsCount;
        int room = capacity - held;
        if (held >= slotsCount && room < Math.max(1, slotsCount / 2)) {
            return 0;
        }
        return Math.max(0, room);
    }

    /**
     * Finished attempts whose acknowledgement is not written yet. Slots free up as soon as an execution ends, so without
     * a bound a worker whose acknowledgements lag (a slow or overloaded database) would keep claiming: every claimed
     * run stays running in the database, and its result in memory, until the acknowledger catches up.
     */
    int unacknowledged() {
        return pendingAcks.size() + sending.get();
    }

    /**
     * Beyond this many unacknowledged results the worker claims nothing until the acknowledger has written a batch:
     * {@value #MAX_UNACKNOWLEDGED}, one full acknowledgement batch, or four times the slots when that is more.
     */
    int maxUnacknowledged() {
        return Math.max(MAX_UNACKNOWLEDGED, 4 * settings.concurrency());
    }

    static final int MAX_UNACKNOWLEDGED = 1_000;

    /** The most acknowledgements written in one statement. */
    static final int MAX_ACK_BATCH = 1_000;

    /**
     * The duty cycle of the claimer and of the acknowledger ({@link BatchPacer}): after a statement, each waits this many
     * times the statement's duration (at most {@link #PACE_CAP_NANOS}) before its next one, so it spends at most a
     * fifth of its time in the database, and each statement carries more runs as the database slows down under load.
     * The claimer waits only after a round that took every due run it saw, and only while runs arrive faster than
     * {@link #PACE_CLAIMS_ABOVE_PER_SECOND}; the acknowledger always (its pause delays no run's start).
     */
    static final double PACE_RATIO = 4;

    /** The longest pause of the duty cycle: 5 ms. */
    static final long PACE_CAP_NANOS = 5_000_000L;

    /**
     * Below this many runs claimed per second the claimer never waits, so pickup latency at ordinary rates is that of
     * the wake-up alone; above it (one worker taking 1,500 runs a second) claims are paced.
     */
    static final double PACE_CLAIMS_ABOVE_PER_SECOND = 1_500;

    /** How often a lingering acknowledger looks whether a full batch is waiting. */
    private static final long LINGER_CHECK_NANOS = 500_000L;

    /** Attempts shorter than this on average let the worker hold one batch of runs ready. */
    static final int PREFETCH_BELOW_MILLIS = 50;

    /** Attempts shorter than this on average let the worker hold three more batches of runs ready. */
    static final int DEEP_PREFETCH_BELOW_MILLIS = 1;

    private static final long NO_DUE_TIME = Long.MAX_VALUE;

    /**
     * How long the claimer waits after a round that left room (unless woken first): the poll interval, or less when
     * a run this worker could take becomes due sooner, so that a run due later starts on time rather than at the next
     * poll. The earliest due time is read from the queue ({@link RunQueue#nextDueIn}) at most once per poll interval,
     * and again as soon as the time read before has come (one read per distinct due time); this worker's own retries
     * arm it directly. A run scheduled later by someone else is therefore known within one poll interval of its
     * creation; one due sooner than that may start up to one poll interval late (runs due now wake the worker through
     * the {@link WorkSignal} instead).
     */
    Duration idleWait() {
        long poll = settings.pollInterval().toNanos();
        long now = System.nanoTime();
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
            return settings.pollInterval();
        }
        return Duration.ofNanos(Math.max(0, Math.min(poll, due - now)));
    }

    private static long earlier(long a, long b) {
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
        // a due time already passed (or a clock tie) still waits a moment: the claim that found nothing just ran
        queriedDueNanos = earliest == null ? NO_DUE_TIME : now + Math.max(earliest.toNanos(), 1_000_000L);
    }

    /** A run this worker gave back for a retry becomes due after {@code delay}: wake for it, not at the next poll. */
    private void dueAfter(Duration delay) {
        long at = System.nanoTime() + Math.max(delay.toNanos(), 1_000_000L);
        retryDueNanos.accumulateAndGet(at, Worker::earlier);
        if (delay.compareTo(settings.pollInterval()) < 0) {
            wake(); // the claimer recomputes its wait (a later retry is seen when the current wait ends anyway)
        }
    }

    private void start(Run run, int lane, long askedNanos) {
        InFlight f = new InFlight(run, new RunFence(run.id(), settings.workerId(), run.attempt()), ticker.nanos(),
                lane, askedNanos + trustedNanos());
        InFlight older = stopOlderAttempts(f);
        inFlight.put(f.fence, f);
        heldPerLane[lane].incrementAndGet();
        slots[lane].execute(() -> {
            if (older != null) {
                awaitEnd(older);
            }
            if (!accepting) {
                // held ready but not started when the drain began: give it straight back
                f.released = true;
                finish(f, ExecutionResult.cancelled("", REASON_SHUTDOWN), Duration.ZERO);
                return;
            }
            f.started = true;
            listener.busySlots(busy.incrementAndGet());
            execute(f);
        });
    }

    /**
     * A run claimed again while this worker still executes an older attempt of it (it paused past its lease): stops the
     * older attempts, whose results are discarded. Returns the newest of them, for the new attempt to wait on.
     */
    private InFlight stopOlderAttempts(InFlight f) {
        InFlight newest = null;
        for (InFlight other : inFlight.values()) {
            if (other.run.id().equals(f.run.id()) && other.run.attempt() < f.run.attempt()) {
                other.leaseLost = true;
                other.cancellation.cancel(REASON_RECLAIMED);
                try (RunLogContext ignored = logContext(other.run)) {
                    LOG.warn("run {} attempt {}: claimed again as attempt {}; stopping the older attempt first",
                            other.run.id(), other.run.attempt(), f.run.attempt());
                }
                if (newest == null || other.run.attempt() > newest.run.attempt()) {
                    newest = other;
                }
            }
        }
        return newest;
    }

    /** Waits until an attempt that was told to stop has ended (its executor's own grace, then the watchdog's). */
    private static void awaitEnd(InFlight older) {
        try {
            if (!older.ended.await(WATCHDOG_GRACE.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.error("run {} attempt {} did not stop when told; starting attempt anyway", older.run.id(),
                        older.run.attempt());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void execute(InFlight f) {
        Run run = f.run;
        MDC.put(RunLogContext.RUN_ID, run.id());
        MDC.put(RunLogContext.JOB_ID, run.jobId());
        MDC.put(RunLogContext.ATTEMPT, Integer.toString(run.attempt()));
        MDC.put(RunLogContext.WORKER_ID, settings.workerId());
        long began = System.nanoTime();
        ExecutionResult result;
        String invalid;
        ScheduledFuture<?> guard = watchdog.schedule(() -> f.cancellation.cancel(REASON_WATCHDOG),
                run.timeout().plus(WATCHDOG_GRACE).toMillis(), TimeUnit.MILLISECONDS);
        try {
            RunExecutor executor = executors.enabled(run.executor()).orElse(null);
            if (executor == null) {
                result = ExecutionResult.failed("", "executor '" + run.executor() + "' is not enabled on worker "
                        + settings.workerId());
            } else if (f.cancellation.isCancelled()) {
                result = ExecutionResult.cancelled("", f.cancellation.reason());
            } else if ((invalid = invalidPayload(executor, run)) != null) {
                result = ExecutionResult.failed("", "invalid payload: " + invalid);
            } else {
                result = executor.execute(new ExecutionContext(run.id(), run.jobId(), run.attempt(), run.payload(),
                        run.timeout(), f.cancellation, settings.maxOutputBytes()));
            }
        } catch (Throwable t) {
            result = ExecutionResult.failed("", "executor '" + run.executor() + "' crashed: " + t);
            LOG.error("executor {} threw instead of returning a result", run.executor(), t);
        } finally {
            guard.cancel(false);
        }
        try {
            finish(f, result, Duration.ofNanos(System.nanoTime() - began));
        } finally {
            MDC.clear();
        }
    }

    /**
     * The executor's validation message for the run's payload, or null when it accepts it. Runs enqueued in SQL
     * reach a worker unchecked by plug-in executors (SQL knows the built-in executors' rules only).
     */
    private static String invalidPayload(RunExecutor executor, Run run) {
        try {
            executor.validate(run.payload());
            return null;
        } catch (ValidationException e) {
            return e.getMessage();
        }
    }

    private void finish(InFlight f, ExecutionResult result, Duration took) {
        f.finished = true;
        try {
            if (!f.leaseLost && !f.released && f.expired(ticker.nanos())) {
                f.leaseLost = true; // ended after its local deadline, before the timer noticed: not trusted either
            }
            if (f.leaseLost) {
                listener.fenceLost(f.fence, "result of an attempt whose lease was lost");
                LOG.warn("run {} attempt {} ended ({}) after its lease was lost; result discarded", f.run.id(),
                        f.run.attempt(), result.outcome().wireName());
                return;
            }
            if (f.released) {
                synchronized (toRelease) {
                    toRelease.add(f.fence);
                }
                return;
            }
            Acknowledgement ack = decide(f, result);
            listener.finished(f.run, ack.outcome(), ack.next(), took);
            if (ack.outcome() == AttemptOutcome.SUCCEEDED) {
                LOG.debug("run {} attempt {} succeeded in {} ms", f.run.id(), f.run.attempt(), took.toMillis());
            } else {
                LOG.info("run {} attempt {} {} in {} ms -> {}: {}", f.run.id(), f.run.attempt(),
                        ack.outcome().wireName(), took.toMillis(), ack.next().wireName(), ack.error());
            }
            ackJobIds.put(ack.fence(), f.run.jobId());
            pendingAcks.add(ack);
        } finally {
            if (inFlight.remove(f.fence) != null) {
                heldPerLane[f.lane].decrementAndGet();
            }
            f.ended.countDown();
            if (f.started) {
                listener.busySlots(busy.decrementAndGet());
                double millis = took.toNanos() / 1e6;
                double average = averageMillis;
                averageMillis = Double.isNaN(average) ? millis : 0.9 * average + 0.1 * millis;
            }
            if (roomWanted || !accepting) {
                wake();
            }
        }
    }

    /** The run's fields for the log lines about it (this worker holds it). */
    private RunLogContext logContext(Run run) {
        return RunLogContext.of(run.id(), run.jobId(), run.attempt(), settings.workerId());
    }

    /** Where the run goes after this attempt: the retry policy decides for failures and timeouts. */
    Acknowledgement decide(InFlight f, ExecutionResult result) {
        AttemptOutcome outcome = result.outcome();
        String error = result.error();
        if ((outcome == AttemptOutcome.FAILED || outcome == AttemptOutcome.TIMED_OUT)
                && REASON_OPERATOR.equals(f.cancellation.reason())) {
            // an operator asked for the stop: however the executor ended it, this is a cancellation, not a failure
            outcome = AttemptOutcome.CANCELLED;
            error = error == null ? REASON_OPERATOR : REASON_OPERATOR + "; the executor reported: " + error;
        }
        if (outcome == AttemptOutcome.CANCELLED && REASON_WATCHDOG.equals(f.cancellation.reason())) {
            outcome = AttemptOutcome.TIMED_OUT;
            error = "timed out after " + f.run.timeoutSeconds() + "s; " + (error == null ? REASON_WATCHDOG : error);
        }
        switch (outcome) {
            case SUCCEEDED:
                return new Acknowledgement(f.fence, outcome, RunStatus.SUCCEEDED, Duration.ZERO, result.output(), null);
            case CANCELLED:
                return new Acknowledgement(f.fence, outcome, RunStatus.CANCELLED, Duration.ZERO, result.output(),
                        error == null ? REASON_OPERATOR : error);
            default:
                FailureDecision decision = settings.retryPolicy().decide(f.run.attempt(), f.run.maxAttempts(),
                        result.permanent(), result.retryAfter(), random);
                listener.failureDecided(f.run, decision);
                return new Acknowledgement(f.fence, outcome, decision.retries() ? RunStatus.PENDING : RunStatus.DEAD,
                        decision.delay(), result.output(), error, decision.retryAfter());
        }
    }

    private void send(List<Acknowledgement> batch) {
        Set<RunFence> applied = queue.acknowledge(batch);
        Duration soonestRetry = null;
        for (Acknowledgement ack : batch) {
            if (ack.next() == RunStatus.PENDING && applied.contains(ack.fence())
                    && (soonestRetry == null || ack.retryDelay().compareTo(soonestRetry) < 0)) {
                soonestRetry = ack.retryDelay();
            }
        }
        if (soonestRetry != null) {
            dueAfter(soonestRetry);
        }
        for (Acknowledgement ack : batch) {
            String jobId = ackJobIds.remove(ack.fence());
            if (!applied.contains(ack.fence())) {
                listener.fenceLost(ack.fence(), "late acknowledgement");
                try (RunLogContext ignored = RunLogContext.of(ack.fence().runId(), jobId, ack.fence().attempt(),
                        ack.fence().workerId())) {
                    LOG.warn("run {} attempt {}: acknowledgement ({}) discarded: the lease was lost before it arrived, "
                            + "so another worker may run it again", ack.fence().runId(), ack.fence().attempt(),
                            ack.outcome().wireName());
                }
            }
        }
    }

    private void cancelRequested(Collection<String> runIds) {
        Set<String> ids = Set.copyOf(runIds);
        for (InFlight f : inFlight.values()) {
            if (ids.contains(f.run.id()) && !f.cancellation.isCancelled()) {
                try (RunLogContext ignored = logContext(f.run)) {
                    LOG.info("run {} attempt {}: cancelled by an operator; stopping it", f.run.id(), f.run.attempt());
                }
                f.cancellation.cancel(REASON_OPERATOR);
            }
        }
    }

    private void claimLoop() {
        Duration backoff = Duration.ofMillis(100);
        boolean exhausted = false;
        while (running && accepting) {
            if (exhausted) {
                waitForCompany(claimPacer.pauseNanos(System.nanoTime()));
            }
            ClaimRound round;
            try {
                claimPacer.started(System.nanoTime());
                round = claimRound();
                claimPacer.ended(System.nanoTime(), round.claimed);
                exhausted = round.exhausted();
                backoff = Duration.ofMillis(100);
            } catch (RuntimeException e) {
                LOG.warn("claim failed ({}); retrying in {} ms", e.toString(), backoff.toMillis());
                sleepQuietly(backoff);
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : backoff.multipliedBy(2);
                continue;
            }
            if (round.filled) {
                continue; // a lane's room filled: there may be more due
            }
            awaitWake(idleWait());
        }
    }

    private void ackLoop() {
        while (running || !pendingAcks.isEmpty()) {
            Acknowledgement first;
            try {
                first = pendingAcks.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
                continue;
            }
            if (first == null) {
                continue;
            }
            sending.set(1); // still counted as unacknowledged while it waits for company
            lingerForCompany(ackPacer.pauseNanos(System.nanoTime()));
            List<Acknowledgement> batch = new ArrayList<>();
            batch.add(first);
            pendingAcks.drainTo(batch, MAX_ACK_BATCH - 1);
            ackPacer.started(System.nanoTime());
            sending.set(batch.size());
            Duration backoff = Duration.ofMillis(100);
            while (true) {
                try {
                    send(batch);
                    ackPacer.ended(System.nanoTime(), batch.size());
                    sending.set(0);
                    if (roomWanted) {
                        wake(); // a claimer held back by unacknowledged runs may claim again
                    }
                    break;
                } catch (RuntimeException e) {
                    if (batch.size() > 1 || !isBare(batch.get(0))) {
                        // a batch the database refuses may hold one poisoned acknowledgement: isolate it
                        batch = sendOneByOne(batch, e);
                        sending.set(batch.size());
                        if (batch.isEmpty()) {
                            if (roomWanted) {
                                wake();
                            }
                            break;
                        }
                    }
                    LOG.warn("acknowledging {} run(s) failed ({}); retrying in {} ms", batch.size(), e.toString(),
                            backoff.toMillis());
                    if (!running) {
                        pendingAcks.addAll(batch); // stop() flushes once more
                        sending.set(0);
                        return;
                    }
                    sleepQuietly(backoff);
                    backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : backoff.multipliedBy(2);
                }
            }
        }
    }

    /**
     * Sends each acknowledgement alone; one the database still refuses is sent once more without its output and
     * with an error saying why, so a result that cannot be stored (say, output PostgreSQL rejects) never holds back
     * the others. Returns what could not be sent even so (the database is down): the caller backs off and retries.
     */
    private List<Acknowledgement> sendOneByOne(List<Acknowledgement> batch, RuntimeException cause) {
        List<Acknowledgement> left = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Acknowledgement ack = batch.get(i);
            try {
                send(List.of(ack));
            } catch (RuntimeException alone) {
                Acknowledgement bare = bare(ack, alone);
                try {
                    send(List.of(bare));
                    LOG.error("run {} attempt {}: its result could not be stored ({}); stored without output",
                            ack.fence().runId(), ack.fence().attempt(), alone.toString());
                } catch (RuntimeException stillFailing) {
                    // not this acknowledgement but the database: keep the rest for the caller's backoff
                    left.addAll(batch.subList(i, batch.size()));
                    break;
                }
            }
        }
        if (!left.isEmpty()) {
            LOG.warn("acknowledging {} run(s) failed ({}); retrying", left.size(), cause.toString());
        }
        return left;
    }

    private static Acknowledgement bare(Acknowledgement ack, RuntimeException why) {
        String error = "the attempt's result could not be stored: " + why.getClass().getSimpleName()
                + (ack.error() == null ? "" : "; the executor reported: " + ack.error().replace('\0', ' '));
        return new Acknowledgement(ack.fence(), ack.outcome(), ack.next(), ack.retryDelay(), "", error);
    }

    private static boolean isBare(Acknowledgement ack) {
        return (ack.output() == null || ack.output().isEmpty()) && ack.error() != null && ack.error().startsWith("the attempt's result could not");
    }

    private void heartbeatLoop() {
        long nextBeat = System.nanoTime() + settings.heartbeatInterval().toNanos();
        Duration tick = settings.pollInterval().compareTo(settings.heartbeatInterval()) < 0
                ? settings.pollInterval() : settings.heartbeatInterval();
        while (running) {
            sleepQuietly(tick);
            if (!running) {
                return;
            }
            try {
                if (System.nanoTime() - nextBeat >= 0) {
                    nextBeat = System.nanoTime() + settings.heartbeatInterval().toNanos();
                    heartbeatOnce();
                } else {
                    checkCancellationsOnce();
                }
            } catch (RuntimeException e) {
                LOG.warn("lease maintenance failed: {}", e.toString());
            }
        }
    }

    private void signalLoop() {
        while (running) {
            try {
                if (signal.await(Duration.ofSeconds(1))) {
                    wake();
                }
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.debug("wake-up signal unavailable: {}", e.toString());
                sleepQuietly(Duration.ofSeconds(1));
            }
        }
    }

    /**
     * The claimer's pause for company ({@link BatchPacer}): waits up to {@code nanos} whatever wakes it meanwhile (the
     * claim after the pause sees every run that became due during it), unless the worker stops accepting.
     */
    private void waitForCompany(long nanos) {
        if (nanos > 0) {
            waitOnWakeLock(nanos, false);
        }
    }

    /**
     * The acknowledger's pause for company ({@link BatchPacer}): waits up to {@code nanos}, less if a full batch is
     * waiting or the worker stops (its drain then writes at once).
     */
    private void lingerForCompany(long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left;
        while (running && accepting && pendingAcks.size() < MAX_ACK_BATCH - 1
                && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, Math.min(left, LINGER_CHECK_NANOS));
        }
    }

    private void wake() {
        synchronized (wakeLock) {
            woken = true;
            wakeLock.notifyAll();
        }
    }

    private void awaitWake(Duration max) {
        waitOnWakeLock(max.toNanos(), true);
    }

    /**
     * Waits on the wake lock for up to {@code nanos}, or less once the worker stops accepting (or, when
     * {@code endOnWake}, once woken); clears the wake flag either way: the claim that follows sees every run that became
     * due meanwhile.
     */
    private void waitOnWakeLock(long nanos, boolean endOnWake) {
        long deadline = System.nanoTime() + nanos;
        synchronized (wakeLock) {
            long left;
            while (!(endOnWake && woken) && running && accepting && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(wakeLock, left);
                } catch (InterruptedException e) {
                    return;
                }
            }
            woken = false;
        }
    }

    private void waitUntilIdle(long deadlineNanos) {
        while (!inFlight.isEmpty() && System.nanoTime() < deadlineNanos) {
            synchronized (wakeLock) {
                try {
                    wakeLock.wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Thread loop(String name, Runnable body) {
        return daemon(() -> {
            try {
                body.run();
            } catch (RuntimeException e) {
                LOG.error("{} stopped unexpectedly", name, e);
            }
        }, name + "-" + settings.workerId());
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** An attempt this worker executes now (or has claimed and is about to start). */
    static final class InFlight {
        final Run run;
        final RunFence fence;
        final long claimedNanos;
        final Cancellation cancellation = new Cancellation();
        final java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        /** Until when (ticker nanos) the lease is trusted: the last confirmation's start plus the trusted span. */
        private final java.util.concurrent.atomic.AtomicLong trustedUntilNanos;
        volatile boolean leaseLost;
        volatile boolean released;
        volatile boolean finished;
        volatile boolean started;

        final int lane;

        InFlight(Run run, RunFence fence, long claimedNanos, int lane, long trustedUntilNanos) {
            this.run = run;
            this.fence = fence;
            this.claimedNanos = claimedNanos;
            this.lane = lane;
            this.trustedUntilNanos = new java.util.concurrent.atomic.AtomicLong(trustedUntilNanos);
        }

        /** A heartbeat that started when the lease was still held confirmed it: trusted until {@code untilNanos}. */
        void confirm(long untilNanos) {
            trustedUntilNanos.accumulateAndGet(untilNanos, (a, b) -> b - a > 0 ? b : a);
        }

        boolean expired(long nowNanos) {
            return nowNanos - trustedUntilNanos.get() >= 0;
        }
    }
}
