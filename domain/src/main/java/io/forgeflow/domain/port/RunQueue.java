package io.forgeflow.domain.port;

import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.Run;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The worker's side of the run table: claim, acknowledge, heartbeat, release; and the leader's lease recovery. The
 * application decides where a run goes after an attempt ({@code OutcomePolicy}); this port only applies decisions,
 * each fenced by its {@link RunFence}. All times come from the database clock.
 */
public interface RunQueue {

    /**
     * Claims up to {@code limit} pending runs that are due, whose executor is in {@code executors}, in order of
     * priority (1 first), then {@code scheduled_for}, then id. Each due run is returned to at most one caller
     * (FOR UPDATE SKIP LOCKED): concurrent claimers take disjoint sets. Each claimed run becomes RUNNING, held by
     * {@code workerId} until now + {@code lease}, with its attempt counter incremented and a started attempt row.
     */
    default List<Run> claim(String workerId, Set<String> executors, int limit, Duration lease) {
        return claim(workerId, executors, QueueSelection.ALL, limit, lease);
    }

    /**
     * Claims as {@link #claim(String, Set, int, Duration)} does, from the selected queues only, and never beyond a
     * limit: runs of paused queues stay pending; a queue's {@code max_running}, a concurrency key's
     * {@code max_concurrent} (the smallest among the active or paused jobs sharing the key and the pending or
     * running runs carrying it) and a queue's rate
     * limit are checked by the claim itself, so concurrent claimers on any number of nodes cannot overshoot them.
     * Runs held back by a limit stay pending without using an attempt. A running run whose lease has expired no
     * longer counts against a limit.
     */
    List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease);

    /**
     * Claims as {@link #claim(String, Set, QueueSelection, int, Duration)} does, reading from past {@code after} in
     * claim order (null: from the start; see {@link ClaimHint}, which the caller owns). The answer is in claim order.
     * Implementations that cannot start past a hint read from the start.
     */
    default List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease,
                            ClaimHint after) {
        return claim(workerId, executors, queues, limit, lease);
    }

    /**
     * How long, on the database clock, until the earliest pending run that is not due yet and that a claim with these
     * {@code executors} and {@code queues} could take once it is due; empty when there is none. A plain read, no
     * locks: a hint for a worker's wake-up timer, so that a run due later starts on time rather than at the next
     * poll. Limits and paused queues are not considered (a run they hold back costs one claim that takes nothing).
     * Implementations that cannot tell return empty (the worker then polls).
     */
    default Optional<Duration> nextDueIn(Set<String> executors, QueueSelection queues) {
        return Optional.empty();
    }

    /**
     * Applies acknowledgements, each fenced by its {@link RunFence}, finishing the attempt rows in the same
     * transaction; a one-off job whose run became terminal becomes completed. Returns the fences that applied;
     * the others belonged to leases that were lost and changed nothing.
     */
    Set<RunFence> acknowledge(Collection<Acknowledgement> acks);

    /**
     * Extends every lease {@code workerId} holds to now + {@code lease}, in one statement. Returns the fences
     * that were extended, and which of them an operator asked to cancel. The worker does not use it (it would keep a
     * lost claim's runs alive): it names what it holds, {@link #heartbeat(String, Collection, Duration)}.
     */
    Heartbeat heartbeat(String workerId, Duration lease);

    /**
     * Extends the holder's own lease, and confirms only the leases named in {@code held} that {@code workerId} (the
     * worker's holder: its label and incarnation, {@link WorkerHolder}) still holds (same run, same attempt, still
     * running), in one call that waits on no lock an application or operator may hold on a run. A run running under
     * the holder that {@code held} does not name (a claim whose reply never reached the worker) is not extended and
     * is reported in {@link Heartbeat#unheld()}, so the worker can release it at once. A holder the leader ended
     * (its lease expired unheard) gets {@link Heartbeat#ended()} and can never be extended again.
     */
    Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease);

    /** Ids of the runs held by {@code workerId} that an operator asked to cancel. */
    Set<String> cancellationsFor(String workerId);

    /**
     * Gives runs back (a draining worker): each fenced run becomes PENDING, due now, with an attempt row
     * {@code released}; the attempt does not count against the budget. Returns the fences that applied.
     */
    Set<RunFence> release(Collection<RunFence> fences);

    /**
     * Leader only: up to {@code limit} running runs whose lease has expired (on the database clock) and whose holder's
     * lease has expired too, the oldest expiry first. Ends, first and for good, the holders whose lease expired (their
     * heartbeats then answer {@link Heartbeat#ended()}); the runs are read without locks: the caller decides, then
     * {@link #recover} applies what still holds.
     */
    List<ExpiredLease> expiredLeases(int limit);

    /**
     * Leader only: applies the rescuer's decisions for expired leases, each an {@link Acknowledgement} with outcome
     * {@code LEASE_EXPIRED} (PENDING after its delay, DEAD, or CANCELLED), fenced like an acknowledgement and also by
     * the lease still being expired now (a heartbeat that extended it meanwhile wins). Finishes the attempt rows
     * ({@code lease_expired}) and the one-off jobs whose run ended, keeps the run's output. Returns the fences that
     * applied.
     */
    Set<RunFence> recover(Collection<Acknowledgement> decisions);

    /**
     * The result of a heartbeat: the fences confirmed, which of them an operator asked to cancel, the runs running
     * under the worker's holder that it did not name (never extended), and whether the holder is still alive: false
     * when the leader ended its lease (it was not heard from for a whole lease), after which nothing is confirmed, the
     * worker must stop every attempt it holds and may claim again only under a new incarnation.
     */
    record Heartbeat(Set<RunFence> extended, Set<String> cancelRequested, Set<RunFence> unheld, boolean alive) {
        public Heartbeat {
            extended = Set.copyOf(extended);
            cancelRequested = Set.copyOf(cancelRequested);
            unheld = Set.copyOf(unheld);
            if (!alive && !(extended.isEmpty() && cancelRequested.isEmpty() && unheld.isEmpty())) {
                throw new IllegalArgumentException("an ended holder's heartbeat confirms nothing");
            }
        }

        /** A heartbeat of a live holder. */
        public Heartbeat(Set<RunFence> extended, Set<String> cancelRequested, Set<RunFence> unheld) {
            this(extended, cancelRequested, unheld, true);
        }

        /** A heartbeat of a live holder that found nothing unheld. */
        public Heartbeat(Set<RunFence> extended, Set<String> cancelRequested) {
            this(extended, cancelRequested, Set.of(), true);
        }

        /** The heartbeat of a holder the leader ended. */
        public static Heartbeat ended() {
            return new Heartbeat(Set.of(), Set.of(), Set.of(), false);
        }
    }
}
