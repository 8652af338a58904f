package io.forgeflow.application.worker;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.WorkSignal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * A worker: claims due runs, executes them, acknowledges how each attempt ended (fenced by worker and attempt),
 * keeps its leases, and drains on shutdown. It is the assembly of small services, each owning its state, each with a
 * {@code runOnce()} for tests and the same injected {@link Ticker}:
 *
 * <pre>
 *  WorkSignal, DueTimer ─▶ WakeUp ─▶ Claimer ─runs─▶ ExecutionSlots ─results─▶ Acknowledger ─▶ RunQueue
 *                            ▲                        ▲ stop, cancel              │
 *                            └──── room freed ────────┼───────────────────────────┘
 *                                                LeaseKeeper (heartbeats of held pairs, cancellations, deadlines)
 * </pre>
 *
 * (docs/architecture.md draws a run's path through them.)
 *
 * <p>Safety: an attempt whose lease cannot be confirmed in time is stopped before another worker could own the run
 * ({@link LeaseKeeper}); every write is fenced, so a late one changes nothing.
 */
public final class Worker {
    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

    private final WorkerSettings settings;
    private final ExecutorRegistry executors;
    private final WorkSignal signal;
    private final WakeUp wakeUp = new WakeUp();
    private final Claimer claimer;
    private final ExecutionSlots slots;
    private final Acknowledger acknowledger;
    private final LeaseKeeper leases;
    private final Incarnation incarnation;
    private boolean started;

    /** A worker that publishes no run events. */
    public Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
                  RandomGenerator random, WorkerListener listener) {
        this(settings, queue, executors, signal, random, listener, RunEvents.NONE);
    }

    /**
     * @param random   the source of retry jitter
     * @param listener told of claims, outcomes and busy slots (metrics); may be null
     * @param events   told of every run change this worker made (claims, ends of attempts, releases)
     */
    public Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
                  RandomGenerator random, WorkerListener listener, RunEvents events) {
        this(settings, queue, executors, signal, random, listener,
                new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS, Claimer.PACE_CLAIMS_ABOVE_PER_SECOND),
                new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS, 0), Ticker.SYSTEM,
                new RunChanges(events, Clock.systemUTC()));
    }

    /** A worker that records the spans of its attempts and runs with {@code tracing}. */
    public Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
                  RandomGenerator random, WorkerListener listener, RunEvents events, Tracing tracing) {
        this(settings, queue, executors, signal, random, listener,
                new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS, Claimer.PACE_CLAIMS_ABOVE_PER_SECOND),
                new BatchPacer(Claimer.PACE_RATIO, Claimer.PACE_CAP_NANOS, 0), Ticker.SYSTEM,
                new RunChanges(events, Clock.systemUTC()), tracing);
    }

    /** With the claimer's and the acknowledger's pacers given (tests). */
    Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
           RandomGenerator random, WorkerListener listener, BatchPacer claimPacer, BatchPacer ackPacer) {
        this(settings, queue, executors, signal, random, listener, claimPacer, ackPacer, Ticker.SYSTEM,
                RunChanges.NONE);
    }

    /** With the pacers and the ticker given (tests). */
    Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
           RandomGenerator random, WorkerListener listener, BatchPacer claimPacer, BatchPacer ackPacer, Ticker ticker) {
        this(settings, queue, executors, signal, random, listener, claimPacer, ackPacer, ticker, RunChanges.NONE);
    }

    /** With the pacers, the ticker and the run changes' publisher given (tests). */
    Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
           RandomGenerator random, WorkerListener listener, BatchPacer claimPacer, BatchPacer ackPacer, Ticker ticker,
           RunChanges changes) {
        this(settings, queue, executors, signal, random, listener, claimPacer, ackPacer, ticker, changes, Tracing.NONE);
    }

    /** With the pacers, the ticker, the run changes' publisher and tracing given (tests). */
    Worker(WorkerSettings settings, RunQueue queue, ExecutorRegistry executors, WorkSignal signal,
           RandomGenerator random, WorkerListener listener, BatchPacer claimPacer, BatchPacer ackPacer,
           Ticker ticker, RunChanges changes, Tracing tracing) {
        this.settings = settings;
        this.executors = executors;
        this.signal = signal;
        WorkerListener heard = listener == null ? WorkerListener.NONE : listener;
        DueTimer dueTimer = new DueTimer(queue, executors, settings.lanes(), settings.pollInterval(), ticker, wakeUp);
        LeaseDeadlines deadlines = new LeaseDeadlines(ticker, LeaseKeeper.trustedNanos(settings));
        this.incarnation = new Incarnation(settings.workerId());
        Tracing traced = tracing == null ? Tracing.NONE : tracing;
        this.acknowledger = new Acknowledger(settings, queue, ackPacer, ticker, wakeUp, dueTimer, heard, changes,
                traced);
        this.slots = new ExecutionSlots(settings, executors, ticker, heard,
                new OutcomePolicy(settings.retryPolicy(), random), deadlines, acknowledger, wakeUp, traced);
        this.leases = new LeaseKeeper(settings, incarnation, queue, ticker, deadlines, slots, acknowledger);
        this.claimer = new Claimer(settings, incarnation, queue, executors, claimPacer, ticker, wakeUp, dueTimer, slots,
                acknowledger, leases, heard, changes);
    }

    public String workerId() {
        return settings.workerId();
    }

    /** The fenced identity this worker claims under now: its label and incarnation ({@code node-1#9f2c...}). */
    public String holder() {
        return incarnation.holder();
    }

    /** Runs this worker holds: executing, or claimed and about to start. Zero once every claimed run has ended. */
    public int busySlots() {
        return slots.size();
    }

    /** Starts the services' threads. */
    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        wakeUp.listen(signal, "ff-wakeups-" + settings.workerId());
        acknowledger.start();
        leases.start();
        claimer.start();
        LOG.info("worker {} started as {}: {} slots ({}), executors {}, lease {}, heartbeat every {}",
                settings.workerId(), incarnation.holder(),
                settings.concurrency(), settings.lanes(), executors.enabledNames(), settings.lease(),
                settings.heartbeatInterval());
    }

    /** Claims due runs into the free slots of each queue lane and starts executing them. Returns how many. */
    public int claimOnce() {
        return claimer.claimRound().claimed();
    }

    /** One heartbeat ({@link LeaseKeeper#runOnce()}). */
    public void heartbeatOnce() {
        leases.runOnce();
    }

    /** Stops runs that an operator asked to cancel. */
    public void checkCancellationsOnce() {
        leases.checkCancellations();
    }

    /** Writes the results waiting for acknowledgement, one batch, at once. Returns how many were written. */
    public int flushAcknowledgements() {
        return acknowledger.flush();
    }

    /**
     * Drains: stops claiming, lets in-flight runs finish for up to the drain grace, then stops the rest and releases
     * them back to the queue (not counted against their attempts), writes the last acknowledgements, and stops.
     */
    public void stop() {
        claimer.stopClaiming();
        slots.stopAccepting();
        acknowledger.hurry();
        if (slots.size() > 0) {
            LOG.info("worker {} draining: waiting up to {} for {} running run(s)", settings.workerId(),
                    settings.drainGrace(), slots.size());
        }
        slots.awaitIdle(System.nanoTime() + settings.drainGrace().toNanos());
        if (slots.size() > 0) {
            LOG.warn("worker {}: drain grace over; stopping {} run(s) and releasing them to the queue",
                    settings.workerId(), slots.size());
            slots.releaseAll();
            slots.awaitIdle(System.nanoTime() + Duration.ofSeconds(15).toNanos());
        }
        claimer.join();
        leases.stop();
        acknowledger.stop();
        acknowledger.drain(slots.remaining());
        slots.shutdown();
        LOG.info("worker {} stopped", settings.workerId());
    }

    Claimer claimer() {
        return claimer;
    }

    ExecutionSlots slots() {
        return slots;
    }

    Acknowledger acknowledger() {
        return acknowledger;
    }

    LeaseKeeper leases() {
        return leases;
    }

    WakeUp wakeUp() {
        return wakeUp;
    }
}
