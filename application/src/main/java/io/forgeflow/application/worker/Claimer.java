package io.forgeflow.application.worker;

import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.domain.port.ClaimHint;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Run;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Claims due runs into the free slots of each queue lane. Owns the room (free slots plus the runs held ready, see
 * {@link #roomToClaim}), its pacing under load ({@link BatchPacer}) and its wait between rounds: until woken
 * ({@link WakeUp}: runs became due, room freed), or until the {@link DueTimer} says a run becomes due, or the poll
 * interval.
 */
final class Claimer {
    private static final Logger LOG = LoggerFactory.getLogger(Claimer.class);

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
    /** Below this many runs claimed per second the claimer never waits (pickup latency is the wake-up's alone). */
    static final double PACE_CLAIMS_ABOVE_PER_SECOND = 500;
    /** Attempts shorter than this on average let the worker hold one batch of runs ready. */
    static final int PREFETCH_BELOW_MILLIS = 50;
    /** Attempts shorter than this on average let the worker hold three more batches of runs ready. */
    static final int DEEP_PREFETCH_BELOW_MILLIS = 1;
    /**
     * How long claims may start past the last run a lane claimed ({@link ClaimHint}): a run of that priority placed
     * before the hint after it was given (due earlier than the claimed ones, inserted later) waits at most this long,
     * or until a claim takes less than it asked for. Counted on the claimer's ticker.
     */
    static final long HINT_NANOS = 1_000_000_000L;
    /** How often a pause for company looks whether the drain began. */
    private static final long PAUSE_CHECK_NANOS = 1_000_000L;

    private final WorkerSettings settings;
    private final Incarnation incarnation;
    private final RunQueue queue;
    private final ExecutorRegistry executors;
    private final BatchPacer pacer;
    private final Ticker ticker;
    private final WakeUp wakeUp;
    private final DueTimer dueTimer;
    private final ExecutionSlots slots;
    private final Acknowledger acknowledger;
    private final LeaseKeeper leases;
    private final WorkerListener listener;
    private final RunChanges changes;
    private final List<QueueLane> lanes;
    private volatile boolean accepting = true;
    /** Whether the last round took every due run it saw (then the next one is paced); claimer thread only. */
    private boolean lastExhausted;
    /** Per lane: where its next claim starts, what it was given for, and since when claims start past hints. */
    private final LaneHint[] hints;
    private Thread thread;

    /** A lane's hint: valid for this holder and executor set, from {@code sinceNanos} on (claimer thread only). */
    private record LaneHint(ClaimHint after, String holder, Set<String> executors, long sinceNanos) {
    }

    Claimer(WorkerSettings settings, Incarnation incarnation, RunQueue queue, ExecutorRegistry executors, BatchPacer pacer, Ticker ticker,
            WakeUp wakeUp, DueTimer dueTimer, ExecutionSlots slots, Acknowledger acknowledger, LeaseKeeper leases,
            WorkerListener listener, RunChanges changes) {
        this.settings = settings;
        this.incarnation = incarnation;
        this.queue = queue;
        this.executors = executors;
        this.pacer = pacer;
        this.ticker = ticker;
        this.wakeUp = wakeUp;
        this.dueTimer = dueTimer;
        this.slots = slots;
        this.acknowledger = acknowledger;
        this.leases = leases;
        this.listener = listener;
        this.changes = changes;
        this.lanes = settings.lanes();
        this.hints = new LaneHint[lanes.size()];
    }

    /**
     * One claim round, as the claimer's loop makes it: after a round that took every due run it saw, first the pause
     * for company the pacer asks (whatever wakes it meanwhile; the claim after it sees every run that became due), then
     * one claim per lane with room.
     */
    Round runOnce() {
        if (lastExhausted) {
            pause(pacer.pauseNanos(ticker.nanos()));
        }
        pacer.started(ticker.nanos());
        Round round = claimRound();
        pacer.ended(ticker.nanos(), round.claimed());
        lastExhausted = round.exhausted();
        return round;
    }

    /** One claim per lane with room, without pacing; starts executing what it claimed. */
    Round claimRound() {
        wakeUp.wantRoom(true); // a failure leaves it set: the next round decides
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
            long askedNanos = leases.claimBegins();
            String holder = incarnation.holder();
            Set<String> names = executors.enabledNames();
            long startedNanos = ticker.nanos();
            LaneHint hint = hintFor(lane, holder, names, startedNanos);
            List<Run> claimed;
            try {
                claimed = queue.claim(holder, names, lanes.get(lane).queues(), room, settings.lease(),
                        hint == null ? null : hint.after());
                // a claim that took all it asked for: the next starts past its last run; else from the start
                hints[lane] = claimed.size() < room ? null : new LaneHint(ClaimHint.after(claimed), holder, names,
                        hint == null ? startedNanos : hint.sinceNanos());
                listener.claimed(claimed);
                changes.claimed(settings.workerId(), claimed);
                if (lane == lanes.size() - 1) {
                    // the round's last claim: whether room is wanted is known before its runs start, so one of them
                    // ending at once does not wake the claimer for a round with nothing to take
                    wakeUp.wantRoom(limited || filled || (!claimed.isEmpty() && claimed.size() == room));
                }
                for (Run run : claimed) {
                    slots.start(run, holder, lane, askedNanos);
                }
            } finally {
                leases.claimSettled();
            }
            total += claimed.size();
            filled |= !claimed.isEmpty() && claimed.size() == room;
        }
        wakeUp.wantRoom(limited || filled);
        return new Round(total, filled, limited);
    }

    /** The lane's hint if it is for this holder and executor set and younger than {@link #HINT_NANOS}; else none. */
    private LaneHint hintFor(int lane, String holder, Set<String> names, long nowNanos) {
        LaneHint hint = hints[lane];
        if (hint == null || !hint.holder().equals(holder) || !hint.executors().equals(names)
                || nowNanos - hint.sinceNanos() > HINT_NANOS) {
            hints[lane] = null;
            return null;
        }
        return hint;
    }

    /**
     * One claim round: how many runs it took, whether some lane's room filled up (there may be more due), and whether
     * some lane had no room at all. A round that is neither took every due run it could see.
     */
    record Round(int claimed, boolean filled, boolean limited) {
        boolean exhausted() {
            return !filled && !limited;
        }
    }

    /**
     * How many runs to claim for a lane now: every idle slot and, while attempts are short (under
     * {@value #PREFETCH_BELOW_MILLIS} ms on average), one more batch held ready, so that the next claim's round trip
     * overlaps execution instead of idling the slots; three more while they take under
     * {@value #DEEP_PREFETCH_BELOW_MILLIS} ms (bigger claims cost the database less per run). Long runs are never
     * prefetched: a run held ready behind a long one would wait while another worker idles. The ready batches are
     * refilled only once half a batch of room is free, so claims stay batched under load. None while the results
     * wait to be written ({@link Acknowledger#behind()}).
     */
    int roomToClaim(int lane) {
        if (acknowledger.behind()) {
            return 0;
        }
        int slotsCount = lanes.get(lane).slots();
        int held = slots.heldIn(lane);
        double average = slots.averageMillis();
        int batches = Double.isNaN(average) || average >= PREFETCH_BELOW_MILLIS ? 1
                : average < DEEP_PREFETCH_BELOW_MILLIS ? 4 : 2;
        int room = batches * slotsCount - held;
        if (held >= slotsCount && room < Math.max(1, slotsCount / 2)) {
            return 0;
        }
        return Math.max(0, room);
    }

    /** The wait after a round that left room ({@link DueTimer}). */
    Duration idleWait() {
        return dueTimer.idleWait();
    }

    /** Waits {@code nanos} on the ticker, unless the drain begins; then forgets wake-ups that came meanwhile. */
    private void pause(long nanos) {
        long deadline = ticker.nanos() + nanos;
        long left;
        while (accepting && (left = deadline - ticker.nanos()) > 0) {
            ticker.park(Math.min(left, PAUSE_CHECK_NANOS));
        }
        wakeUp.await(0, false);
    }

    /** Starts claiming on a thread of its own. */
    void start() {
        thread = new Thread(this::loop, "ff-claimer-" + settings.workerId());
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        Duration backoff = Duration.ofMillis(100);
        while (accepting) {
            Round round;
            try {
                round = runOnce();
                backoff = Duration.ofMillis(100);
            } catch (RuntimeException e) {
                LOG.warn("claim failed ({}); retrying in {} ms", e.toString(), backoff.toMillis());
                wakeUp.await(backoff.toNanos(), false);
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5)
                        : backoff.multipliedBy(2);
                continue;
            }
            if (!round.filled()) {
                wakeUp.await(idleWait().toNanos(), true);
            }
        }
    }

    /** The drain begins: no more claims; every wait of the claimer ends. */
    void stopClaiming() {
        accepting = false;
        wakeUp.close();
    }

    /** Waits for the claimer's thread to end (a claim under way returns first). */
    void join() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
