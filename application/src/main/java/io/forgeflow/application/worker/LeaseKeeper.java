package io.forgeflow.application.worker;

import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps the worker's leases: heartbeats of its holder ({@link Incarnation}) that extend only the (run, attempt) pairs
 * it holds and wait on no lock of an application or operator, a new incarnation when the leader ended the holder, the
 * operator's
 * cancellations, and the rule that an attempt whose lease can no longer be trusted is stopped. Owns which attempts
 * are confirmed until when ({@link LeaseDeadlines}) and the runs seen under this worker's id that it never received.
 *
 * <ul>
 *   <li>{@link #runOnce()}: one heartbeat. Confirmed attempts get a new local deadline (the heartbeat's start plus
 *       the lease less one interval); attempts it named that the database no longer has are stopped (lease lost); it
 *       judges only what it named, never an attempt registered after it listed them; runs running under this
 *       worker's id that it holds in no form (a claim whose reply was lost) are released to the queue once every
 *       claim begun before the heartbeat has settled (none of them can still arrive), and never while an attempt of
 *       theirs is still here, stopping or not.</li>
 *   <li>{@link #enforceDeadlines()}: on a timer of its own, so a heartbeat that throws, hangs or is never sent cannot
 *       postpone it, stops every attempt past its local deadline; its result is then discarded.</li>
 * </ul>
 */
final class LeaseKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    private final WorkerSettings settings;
    private final Incarnation incarnation;
    private final RunQueue queue;
    private final Ticker ticker;
    private final LeaseDeadlines deadlines;
    private final ExecutionSlots slots;
    private final Acknowledger acknowledger;
    /** Claims begun, and claims settled (registered or failed); claims are made one after another. */
    private final AtomicInteger claimsBegun = new AtomicInteger();
    private final AtomicInteger claimsSettled = new AtomicInteger();
    /** Runs a heartbeat found under this worker's id but not held, waiting for the claims begun before it. */
    private volatile Unheld unheldWaiting;
    private final ScheduledExecutorService timer;
    private volatile boolean running;
    private Thread thread;

    private record Unheld(Set<RunFence> fences, int claimsBegun) {
    }

    LeaseKeeper(WorkerSettings settings, Incarnation incarnation, RunQueue queue, Ticker ticker,
                LeaseDeadlines deadlines, ExecutionSlots slots, Acknowledger acknowledger) {
        this.settings = settings;
        this.incarnation = incarnation;
        this.queue = queue;
        this.ticker = ticker;
        this.deadlines = deadlines;
        this.slots = slots;
        this.acknowledger = acknowledger;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ff-lease-deadlines-" + settings.workerId());
            t.setDaemon(true);
            return t;
        });
    }

    /** How long a confirmation is trusted: the lease less one heartbeat interval of margin. */
    static long trustedNanos(WorkerSettings settings) {
        return settings.lease().minus(settings.heartbeatInterval()).toNanos();
    }

    /** A claim begins; returns when it was asked (ticker), from which its runs' deadlines count. */
    long claimBegins() {
        claimsBegun.incrementAndGet();
        return ticker.nanos();
    }

    /** The claim begun last has settled: its runs are registered, or it failed. */
    void claimSettled() {
        claimsSettled.incrementAndGet();
    }

    /** One heartbeat (see the class comment). A heartbeat that fails or hangs moves no deadline. */
    void runOnce() {
        long startedNanos = ticker.nanos();
        unheldWaiting = releaseSettled(unheldWaiting);
        RunQueue.Heartbeat beat;
        String holder = incarnation.holder();
        Set<RunFence> named = held();
        try {
            beat = queue.heartbeat(holder, named, settings.lease());
        } catch (RuntimeException e) {
            LOG.warn("heartbeat failed ({}); {} run(s) held, each stopped once its lease can no longer be trusted",
                    e.toString(), slots.size());
            return;
        }
        if (!beat.alive()) {
            ended(holder);
            return;
        }
        for (RunFence fence : deadlines.fences()) {
            if (beat.extended().contains(fence)) {
                deadlines.confirmed(fence, startedNanos);
            } else if (named.contains(fence)) { // not named: registered after the list, so not judged by this answer
                slots.stop(fence, StopReasons.LEASE_LOST);
            }
        }
        slots.cancelRuns(beat.cancelRequested());
        unheldWaiting = beat.unheld().isEmpty() ? null : new Unheld(beat.unheld(), claimsBegun.get());
        unheldWaiting = releaseSettled(unheldWaiting);
    }

    /**
     * The leader ended this holder (its lease expired unheard: the worker was frozen or cut off for a whole lease), so
     * its runs are being recovered: every attempt claimed under it stops, and the worker goes on as a new incarnation.
     */
    private void ended(String holder) {
        int stopped = 0;
        for (RunFence fence : deadlines.fences()) {
            if (fence.workerId().equals(holder) && slots.stop(fence, StopReasons.LEASE_LOST)) {
                stopped++;
            }
        }
        unheldWaiting = null;
        String next = incarnation.renew();
        LOG.error("worker {}: the leader ended holder {} (its lease expired before a heartbeat arrived); stopped {} "
                + "attempt(s), whose runs are recovered; claiming from now on as {}", settings.workerId(), holder,
                stopped, next);
    }

    /** The attempts this worker vouches for: executing or about to, or ended and waiting to be written. */
    private Set<RunFence> held() {
        Set<RunFence> held = new HashSet<>(slots.held());
        held.addAll(acknowledger.awaiting());
        return held;
    }

    /** Every attempt still here in any form: held, stopping (its process may still run) or waiting to be written. */
    private Set<RunFence> here() {
        Set<RunFence> here = new HashSet<>(slots.registered());
        here.addAll(acknowledger.awaiting());
        return here;
    }

    /** Gives back unheld runs once every claim begun before they were seen has settled; else they wait. */
    private Unheld releaseSettled(Unheld unheld) {
        if (unheld == null) {
            return null;
        }
        if (claimsSettled.get() - unheld.claimsBegun() < 0) {
            return unheld;
        }
        Set<RunFence> lost = new HashSet<>(unheld.fences());
        lost.removeAll(here());
        if (!lost.isEmpty()) {
            try {
                Set<RunFence> done = queue.release(lost);
                if (!done.isEmpty()) { // none: they ended meanwhile (acknowledged, recovered), nothing to say
                    LOG.warn("worker {}: released {} run(s) running under its id that it never received (a claim "
                            + "whose reply was lost)", settings.workerId(), done.size());
                }
            } catch (RuntimeException e) {
                LOG.warn("worker {}: could not release {} run(s) it never received ({}); their leases expire",
                        settings.workerId(), lost.size(), e.toString());
            }
        }
        return null;
    }

    /** Stops runs that an operator asked to cancel (one query, only while something is held). */
    void checkCancellations() {
        if (slots.size() == 0) {
            return;
        }
        slots.cancelRuns(queue.cancellationsFor(incarnation.holder()));
    }

    /** Stops every attempt past its local lease deadline. Returns how many it stopped. */
    int enforceDeadlines() {
        int stopped = 0;
        for (RunFence fence : deadlines.expired()) {
            if (slots.stop(fence, StopReasons.UNTRUSTED)) {
                stopped++;
            }
        }
        return stopped;
    }

    /** How often local lease deadlines are checked: a tenth of the heartbeat interval, within 20 ms to 1 s. */
    Duration deadlineTick() {
        long millis = Math.max(20, Math.min(1_000, settings.heartbeatInterval().toMillis() / 10));
        return Duration.ofMillis(millis);
    }

    /** Starts the heartbeat loop and the deadline timer. */
    void start() {
        running = true;
        long tick = deadlineTick().toMillis();
        timer.scheduleWithFixedDelay(this::enforceDeadlines, tick, tick, TimeUnit.MILLISECONDS);
        thread = new Thread(this::loop, "ff-heartbeat-" + settings.workerId());
        thread.setDaemon(true);
        thread.start();
    }

    /** Heartbeats every interval; between them, checks for cancellations every poll interval. */
    private void loop() {
        long beatNanos = settings.heartbeatInterval().toNanos();
        long nextBeat = ticker.nanos() + beatNanos;
        Duration tick = settings.pollInterval().compareTo(settings.heartbeatInterval()) < 0
                ? settings.pollInterval() : settings.heartbeatInterval();
        while (running) {
            try {
                Thread.sleep(tick.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            try {
                if (ticker.nanos() - nextBeat >= 0) {
                    nextBeat = ticker.nanos() + beatNanos;
                    runOnce();
                } else {
                    checkCancellations();
                }
            } catch (RuntimeException e) {
                LOG.warn("lease maintenance failed: {}", e.toString());
            }
        }
    }

    /** Stops the heartbeat loop and the deadline timer. */
    void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        timer.shutdownNow();
    }
}
