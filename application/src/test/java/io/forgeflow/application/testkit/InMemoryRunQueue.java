package io.forgeflow.application.testkit;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@link RunQueue} over an {@link InMemoryStore}. Each call holds the store's monitor, so a claim hands each due
 * run to at most one caller, and every worker write is fenced by run id, status RUNNING, holder and attempt,
 * exactly as the SQL is; holders have their own leases, ended by a recovery once expired, as in worker_leases.
 */
public final class InMemoryRunQueue implements RunQueue {
    private static final Comparator<Run> CLAIM_ORDER = Comparator.comparingInt(Run::priority)
            .thenComparing(Run::scheduledFor)
            .thenComparing(Run::id);

    private final InMemoryStore store;
    /** The holders' own leases (worker_leases): until when, and whether the leader ended them for good. */
    private final Map<String, Holder> holders = new HashMap<>();

    private static final class Holder {
        Instant expiresAt;
        boolean ended;

        Holder(Instant expiresAt) {
            this.expiresAt = expiresAt;
        }
    }

    InMemoryRunQueue(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease) {
        synchronized (store) {
            Instant now = store.now();
            Holder holder = holders.get(workerId);
            if (holder == null) {
                holders.put(workerId, new Holder(now.plus(lease)));
            } else if (holder.ended) {
                return List.of();
            }
            List<Run> due = store.runs.values().stream()
                    .filter(r -> r.status() == RunStatus.PENDING && !r.scheduledFor().isAfter(now)
                            && executors.contains(r.executor()) && queues.takes(store.queueOf(r)))
                    .sorted(CLAIM_ORDER)
                    .collect(Collectors.toList());
            Map<String, Integer> queueRoom = new HashMap<>();
            Map<String, Integer> keyRoom = new HashMap<>();
            List<Run> claimed = new ArrayList<>();
            for (Run run : due) {
                if (claimed.size() >= limit) {
                    break;
                }
                String queue = store.slotOf(run);
                String key = store.keyOf(run);
                int qRoom = queueRoom.computeIfAbsent(queue, q -> roomInQueue(q, now));
                int kRoom = key == null ? Integer.MAX_VALUE : keyRoom.computeIfAbsent(key, k -> roomForKey(k, now));
                if (qRoom <= 0 || kRoom <= 0) {
                    continue;
                }
                queueRoom.put(queue, qRoom - 1);
                if (key != null) {
                    keyRoom.put(key, kRoom - 1);
                }
                Run held = RunTransitions.claim(run, workerId, now, now.plus(lease));
                store.runs.put(held.id(), held);
                store.startAttempt(held, now);
                InMemoryStore.QueueRow row = store.queues.get(queue);
                if (row != null && row.limits().rateLimit() != null) {
                    store.queueStarts.computeIfAbsent(queue, q -> new ArrayList<>()).add(now);
                }
                claimed.add(held);
            }
            return claimed;
        }
    }

    /** How many more runs of the tenant's queue ({@link InMemoryStore#slot}) may start now (paused: none). */
    private int roomInQueue(String queue, Instant now) {
        InMemoryStore.QueueRow row = store.queues.get(queue);
        if (row == null) {
            return Integer.MAX_VALUE;
        }
        if (row.paused()) {
            return 0;
        }
        int room = Integer.MAX_VALUE;
        if (row.limits().maxRunning() != null) {
            long running = store.runs.values().stream().filter(r -> r.status() == RunStatus.RUNNING
                    && r.leaseExpiresAt().isAfter(now) && store.slotOf(r).equals(queue)).count();
            room = (int) Math.min(room, row.limits().maxRunning() - running);
        }
        if (row.limits().rateLimit() != null) {
            Instant from = now.minusSeconds(row.limits().rateLimit().perSeconds());
            long started = store.queueStarts.getOrDefault(queue, List.of()).stream().filter(t -> t.isAfter(from)).count();
            room = (int) Math.min(room, row.limits().rateLimit().count() - started);
        }
        return room;
    }

    /**
     * How many more runs sharing the key may start now: the smallest max_concurrent of its live jobs and runs, less
     * those running.
     */
    private int roomForKey(String key, Instant now) {
        int limit = Integer.MAX_VALUE;
        long running = 0;
        for (Run r : store.runs.values()) {
            if ((r.status() == RunStatus.PENDING || r.status() == RunStatus.RUNNING) && key.equals(store.keyOf(r))) {
                limit = Math.min(limit, store.maxConcurrentOf(r));
                if (r.status() == RunStatus.RUNNING && r.leaseExpiresAt().isAfter(now)) {
                    running++;
                }
            }
        }
        for (io.forgeflow.domain.job.Job job : store.jobs.values()) {
            if ((job.status() == io.forgeflow.domain.job.JobStatus.ACTIVE
                    || job.status() == io.forgeflow.domain.job.JobStatus.PAUSED)
                    && key.equals(job.spec().concurrencyKey())) {
                limit = Math.min(limit, job.spec().maxConcurrent());
            }
        }
        return (int) (limit - running);
    }

    @Override
    public java.util.Optional<Duration> nextDueIn(Set<String> executors, QueueSelection queues) {
        synchronized (store) {
            Instant now = store.now();
            return store.runs.values().stream()
                    .filter(r -> r.status() == RunStatus.PENDING && r.scheduledFor().isAfter(now)
                            && executors.contains(r.executor()) && queues.takes(store.queueOf(r)))
                    .map(Run::scheduledFor)
                    .min(Comparator.naturalOrder())
                    .map(due -> Duration.between(now, due));
        }
    }

    @Override
    public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
        synchronized (store) {
            Instant now = store.now();
            Set<RunFence> applied = new LinkedHashSet<>();
            for (Acknowledgement ack : acks) {
                Run run = heldUnder(ack.fence());
                if (run == null) {
                    continue;
                }
                Run next = finish(run, ack, now);
                store.runs.put(next.id(), next);
                store.finishAttempt(run.id(), run.attempt(), now, ack.outcome(), ack.error(),
                        ack.retryAfter() == null ? null : (int) ack.retryAfter().toSeconds());
                store.afterRunEnded(next, now);
                applied.add(ack.fence());
            }
            return applied;
        }
    }

    @Override
    public Heartbeat heartbeat(String workerId, Duration lease) {
        synchronized (store) {
            Instant until = store.now().plus(lease);
            if (!extendHolder(workerId, until)) {
                return Heartbeat.ended();
            }
            Set<RunFence> extended = new HashSet<>();
            Set<String> cancel = new HashSet<>();
            for (Run run : heldBy(workerId)) {
                store.runs.put(run.id(), withLease(run, until));
                extended.add(new RunFence(run.id(), workerId, run.attempt()));
                if (run.cancelRequested()) {
                    cancel.add(run.id());
                }
            }
            return new Heartbeat(extended, cancel);
        }
    }

    @Override
    public Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease) {
        synchronized (store) {
            Instant until = store.now().plus(lease);
            if (!extendHolder(workerId, until)) {
                return Heartbeat.ended();
            }
            Set<RunFence> named = Set.copyOf(held);
            Set<RunFence> extended = new HashSet<>();
            Set<String> cancel = new HashSet<>();
            Set<RunFence> unheld = new HashSet<>();
            for (Run run : heldBy(workerId)) {
                RunFence fence = new RunFence(run.id(), workerId, run.attempt());
                if (!named.contains(fence)) {
                    unheld.add(fence);
                    continue;
                }
                store.runs.put(run.id(), withLease(run, until));
                extended.add(fence);
                if (run.cancelRequested()) {
                    cancel.add(run.id());
                }
            }
            return new Heartbeat(extended, cancel, unheld);
        }
    }

    @Override
    public Set<String> cancellationsFor(String workerId) {
        synchronized (store) {
            return heldBy(workerId).stream().filter(Run::cancelRequested).map(Run::id).collect(Collectors.toSet());
        }
    }

    @Override
    public Set<RunFence> release(Collection<RunFence> fences) {
        synchronized (store) {
            Instant now = store.now();
            Set<RunFence> applied = new LinkedHashSet<>();
            for (RunFence fence : fences) {
                Run run = heldUnder(fence);
                if (run == null) {
                    continue;
                }
                store.runs.put(run.id(), RunTransitions.release(run, now));
                store.finishAttempt(run.id(), run.attempt(), now, AttemptOutcome.RELEASED, "released by worker "
                        + fence.workerId() + " before it started or finished (not counted)");
                applied.add(fence);
            }
            return applied;
        }
    }

    @Override
    public List<ExpiredLease> expiredLeases(int limit) {
        synchronized (store) {
            Instant now = store.now();
            return store.runs.values().stream()
                    .filter(r -> r.status() == RunStatus.RUNNING && r.leaseExpiresAt().isBefore(now)
                            && !holderLive(r.workerId(), now))
                    .sorted(Comparator.comparing(Run::leaseExpiresAt).thenComparing(Run::id))
                    .limit(Math.max(0, limit))
                    .map(r -> new ExpiredLease(new RunFence(r.id(), r.workerId(), r.attempt()), r.jobId(),
                            r.maxAttempts(), r.cancelRequested(), r.retry()))
                    .collect(Collectors.toList());
        }
    }

    @Override
    public Set<RunFence> recover(Collection<Acknowledgement> decisions) {
        synchronized (store) {
            Instant now = store.now();
            Set<RunFence> applied = new LinkedHashSet<>();
            for (Acknowledgement decision : decisions) {
                if (decision.outcome() != AttemptOutcome.LEASE_EXPIRED) {
                    throw new IllegalArgumentException("a recovery ends an attempt as lease_expired, not "
                            + decision.outcome().wireName());
                }
                Run run = heldUnder(decision.fence());
                if (run == null || !run.leaseExpiresAt().isBefore(now)) {
                    continue;
                }
                Holder holder = holders.get(run.workerId());
                if (holder != null && !holder.ended && holder.expiresAt.isBefore(now)) {
                    holder.ended = true;                  // for good: it can neither heartbeat nor claim again
                }
                if (holder != null && !holder.ended) {
                    continue;
                }
                Acknowledgement keepingOutput = new Acknowledgement(decision.fence(), decision.outcome(),
                        decision.next(), decision.retryDelay(), run.output(), decision.error());
                Run next = finish(run, keepingOutput, now);
                store.runs.put(next.id(), next);
                store.finishAttempt(run.id(), run.attempt(), now, AttemptOutcome.LEASE_EXPIRED, decision.error());
                store.afterRunEnded(next, now);
                applied.add(decision.fence());
            }
            return applied;
        }
    }

    /** Extends a holder's own lease (making it at its first heartbeat); false when the leader ended it. */
    private boolean extendHolder(String workerId, Instant until) {
        Holder holder = holders.computeIfAbsent(workerId, w -> new Holder(until));
        if (holder.ended) {
            return false;
        }
        holder.expiresAt = until;
        return true;
    }

    private boolean holderLive(String workerId, Instant now) {
        Holder holder = holders.get(workerId);
        return holder != null && !holder.ended && !holder.expiresAt.isBefore(now);
    }

    /** The run named by the fence if it is still running under that worker and attempt, else null. */
    private Run heldUnder(RunFence fence) {
        Run run = store.runs.get(fence.runId());
        if (run == null || run.status() != RunStatus.RUNNING || !fence.workerId().equals(run.workerId())
                || run.attempt() != fence.attempt()) {
            return null;
        }
        return run;
    }

    private List<Run> heldBy(String workerId) {
        return store.runs.values().stream()
                .filter(r -> r.status() == RunStatus.RUNNING && workerId.equals(r.workerId()))
                .collect(Collectors.toList());
    }

    private static Run finish(Run run, Acknowledgement ack, Instant now) {
        switch (ack.next()) {
            case SUCCEEDED:
                return RunTransitions.succeed(run, now, ack.output());
            case PENDING:
                if (ack.outcome() == AttemptOutcome.SNOOZED) {
                    return RunTransitions.snooze(run, now, ack.retryDelay(), ack.output());
                }
                return RunTransitions.fail(run, now, ack.output(), ack.error(),
                        FailureDecision.retryAfter(ack.retryDelay()));
            case DEAD:
                return RunTransitions.fail(run, now, ack.output(), ack.error(), FailureDecision.deadLetter());
            case CANCELLED:
                Run cancelled = RunTransitions.cancel(run, now, ack.error());
                return new Run(cancelled.id(), cancelled.jobId(), cancelled.status(), cancelled.attempt(),
                        cancelled.maxAttempts(), cancelled.priority(), cancelled.scheduledFor(), cancelled.startedAt(),
                        cancelled.finishedAt(), null, null, ack.output(), cancelled.error(), cancelled.executor(),
                        cancelled.payload(), cancelled.timeoutSeconds(), false, cancelled.createdAt(),
                        cancelled.trace(), cancelled.retry(), cancelled.labels(), cancelled.snoozes());
            default:
                throw new IllegalArgumentException("a running run cannot become " + ack.next().wireName());
        }
    }

    private static Run withLease(Run r, Instant leaseUntil) {
        return new Run(r.id(), r.jobId(), r.status(), r.attempt(), r.maxAttempts(), r.priority(), r.scheduledFor(),
                r.startedAt(), r.finishedAt(), r.workerId(), leaseUntil, r.output(), r.error(), r.executor(),
                r.payload(), r.timeoutSeconds(), r.cancelRequested(), r.createdAt(), r.trace(), r.retry(), r.labels(),
                r.snoozes());
    }
}
