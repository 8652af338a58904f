package io.forgeflow.application.worker;

import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Run;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RunQueue} in front of the in-memory one that records what a worker asked of it and can play an
 * unreachable database for heartbeats or acknowledgements (throwing, as a JDBC adapter would).
 */
final class ScriptedRunQueue implements RunQueue {
    private final RunQueue delegate;
    volatile boolean heartbeatsFail;
    /** Holders the leader ended: their heartbeats answer {@link Heartbeat#ended()}. */
    final Set<String> endedHolders = java.util.concurrent.ConcurrentHashMap.newKeySet();
    volatile boolean acknowledgementsFail;
    /** Refuses a whole batch holding a NUL character in an output or error, as PostgreSQL refuses such text. */
    volatile boolean refusesNulLikePostgres;
    final AtomicInteger refusedBatches = new AtomicInteger();
    final List<Set<String>> claimedWithExecutors = new CopyOnWriteArrayList<>();
    final List<Acknowledgement> acknowledgementsSent = new CopyOnWriteArrayList<>();
    /** The size of each acknowledgement call that was written. */
    final List<Integer> acknowledgementBatches = new CopyOnWriteArrayList<>();
    /** How many claims were asked for. */
    final AtomicInteger claims = new AtomicInteger();
    final AtomicInteger cancellationQueries = new AtomicInteger();
    final AtomicInteger nextDueQueries = new AtomicInteger();
    final List<io.forgeflow.domain.queue.QueueSelection> nextDueSelections = new CopyOnWriteArrayList<>();
    /** Plays a database that cannot answer when the next run is due. */
    volatile boolean nextDueFails;
    /** When set, the answer to every {@link #nextDueIn} (whatever the runs): when the next run is due. */
    volatile Duration nextDueAnswer;
    /** When set, every {@link #acknowledge} waits for this latch before writing (a slow database). */
    volatile java.util.concurrent.CountDownLatch acknowledgementsWaitFor;
    /** When set, every {@link #claim} waits for this latch before claiming (a slow database). */
    volatile java.util.concurrent.CountDownLatch claimsWaitFor;
    /** Claims answered (the in-memory queue's claim returned). */
    final AtomicInteger claimsAnswered = new AtomicInteger();
    /** Claims waiting on {@link #claimsWaitFor} now. */
    final AtomicInteger claimsWaiting = new AtomicInteger();
    /** Acknowledgement calls waiting on {@link #acknowledgementsWaitFor} now. */
    final AtomicInteger acknowledgementsWaiting = new AtomicInteger();

    /** Plays a claim whose commit succeeded but whose reply was lost: the runs are claimed, the caller gets an error. */
    volatile boolean nextClaimReplyLost;
    /** When set, every heartbeat waits for this latch before extending (a database that does not answer). */
    volatile java.util.concurrent.CountDownLatch heartbeatsWaitFor;
    final AtomicInteger heartbeatsWaiting = new AtomicInteger();
    /** What each heartbeat named as held. */
    final List<Set<RunFence>> heartbeatsHeld = new CopyOnWriteArrayList<>();
    /** Runs inside every claim, before it is answered (a test moves its ticker to give the claim a duration). */
    volatile Runnable duringClaim;
    /** Runs inside every acknowledgement call, before it is written. */
    volatile Runnable duringAcknowledge;
    /** Runs inside every heartbeat that names what it holds, before it extends anything. */
    volatile Runnable duringHeartbeat;
    /** Every release asked for. */
    final List<RunFence> released = new CopyOnWriteArrayList<>();

    /** The hint each claim was given (null: none), and each claim's answer, in call order. */
    final List<java.util.Optional<io.forgeflow.domain.port.ClaimHint>> hintsGiven = new CopyOnWriteArrayList<>();
    final List<List<Run>> answers = new CopyOnWriteArrayList<>();

    ScriptedRunQueue(RunQueue delegate) {
        this.delegate = delegate;
    }

    void recover() {
        heartbeatsFail = false;
        acknowledgementsFail = false;
        refusesNulLikePostgres = false;
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, io.forgeflow.domain.queue.QueueSelection queues,
                               int limit, Duration lease) {
        claimedWithExecutors.add(Set.copyOf(executors));
        claims.incrementAndGet();
        waitFor(claimsWaitFor, claimsWaiting, "claim");
        Runnable during = duringClaim;
        if (during != null) {
            during.run();
        }
        List<Run> claimed = delegate.claim(workerId, executors, queues, limit, lease);
        if (nextClaimReplyLost && !claimed.isEmpty()) {
            nextClaimReplyLost = false;
            throw new IllegalStateException("connection reset (the claim committed, its reply was lost)");
        }
        claimsAnswered.incrementAndGet();
        return claimed;
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, io.forgeflow.domain.queue.QueueSelection queues,
                           int limit, Duration lease, io.forgeflow.domain.port.ClaimHint after) {
        hintsGiven.add(java.util.Optional.ofNullable(after));
        List<Run> claimed = claim(workerId, executors, queues, limit, lease);
        answers.add(List.copyOf(claimed));
        return claimed;
    }

    @Override
    public java.util.Optional<Duration> nextDueIn(Set<String> executors,
                                                  io.forgeflow.domain.queue.QueueSelection queues) {
        nextDueQueries.incrementAndGet();
        nextDueSelections.add(queues);
        if (nextDueFails) {
            throw new IllegalStateException("database unreachable (next due)");
        }
        if (nextDueAnswer != null) {
            return java.util.Optional.of(nextDueAnswer);
        }
        return delegate.nextDueIn(executors, queues);
    }

    @Override
    public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
        waitFor(acknowledgementsWaitFor, acknowledgementsWaiting, "acknowledgement");
        Runnable during = duringAcknowledge;
        if (during != null) {
            during.run();
        }
        if (acknowledgementsFail) {
            throw new IllegalStateException("database unreachable (acknowledge)");
        }
        if (refusesNulLikePostgres && acks.stream().anyMatch(a -> hasNul(a.output()) || hasNul(a.error()))) {
            refusedBatches.incrementAndGet();
            throw new IllegalStateException("ERROR: invalid byte sequence for encoding \"UTF8\": 0x00");
        }
        acknowledgementsSent.addAll(acks);
        acknowledgementBatches.add(acks.size());
        return delegate.acknowledge(acks);
    }

    /** Plays a slow database: waits for {@code latch} (when set), counted in {@code waiting} meanwhile. */
    private static void waitFor(java.util.concurrent.CountDownLatch latch, AtomicInteger waiting, String what) {
        if (latch == null) {
            return;
        }
        waiting.incrementAndGet();
        try {
            if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the " + what + " through");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a " + what, e);
        } finally {
            waiting.decrementAndGet();
        }
    }

    private static boolean hasNul(String text) {
        return text != null && text.indexOf('\0') >= 0;
    }

    @Override
    public Heartbeat heartbeat(String workerId, Duration lease) {
        if (heartbeatsFail) {
            throw new IllegalStateException("database unreachable (heartbeat)");
        }
        return delegate.heartbeat(workerId, lease);
    }

    @Override
    public Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease) {
        heartbeatsHeld.add(Set.copyOf(held));
        waitFor(heartbeatsWaitFor, heartbeatsWaiting, "heartbeat");
        Runnable during = duringHeartbeat;
        if (during != null) {
            during.run();
        }
        if (heartbeatsFail) {
            throw new IllegalStateException("database unreachable (heartbeat)");
        }
        if (endedHolders.contains(workerId)) {
            return Heartbeat.ended();
        }
        return delegate.heartbeat(workerId, held, lease);
    }

    @Override
    public Set<String> cancellationsFor(String workerId) {
        cancellationQueries.incrementAndGet();
        return delegate.cancellationsFor(workerId);
    }

    @Override
    public Set<RunFence> release(Collection<RunFence> fences) {
        released.addAll(fences);
        return delegate.release(fences);
    }

    @Override
    public List<io.forgeflow.domain.port.ExpiredLease> expiredLeases(int limit) {
        return delegate.expiredLeases(limit);
    }

    @Override
    public Set<RunFence> recover(Collection<Acknowledgement> decisions) {
        return delegate.recover(decisions);
    }
}
