package io.forgeflow.embedded;

import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.ClaimHint;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.Run;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The run queue as an embedded worker claims from it: where the worker asks for executor {@code java}, it asks for
 * its handlers' claim keys ({@code java:send-receipt}, {@link HandlerPayload#claimKey}), so it never takes a run of a
 * handler it does not have. Everything else goes to the queue unchanged.
 */
final class HandlerRunQueue implements RunQueue {
    private final RunQueue queue;
    private final Set<String> claimKeys;

    HandlerRunQueue(RunQueue queue, Set<String> handlers) {
        this.queue = queue;
        Set<String> keys = new TreeSet<>();
        for (String handler : handlers) {
            keys.add(HandlerPayload.claimKey(handler));
        }
        this.claimKeys = Set.copyOf(keys);
    }

    /** {@code executors} with {@code java} replaced by the handlers' claim keys. */
    Set<String> claimKeysFor(Set<String> executors) {
        if (!executors.contains(HandlerPayload.EXECUTOR)) {
            return executors;
        }
        Set<String> keys = new TreeSet<>(executors);
        keys.remove(HandlerPayload.EXECUTOR);
        keys.addAll(claimKeys);
        return keys;
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, int limit, Duration lease) {
        return claim(workerId, executors, QueueSelection.ALL, limit, lease);
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease) {
        return queue.claim(workerId, claimKeysFor(executors), queues, limit, lease);
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease,
                           ClaimHint after) {
        return queue.claim(workerId, claimKeysFor(executors), queues, limit, lease, after);
    }

    @Override
    public Optional<Duration> nextDueIn(Set<String> executors, QueueSelection queues) {
        return queue.nextDueIn(claimKeysFor(executors), queues);
    }

    @Override
    public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
        return queue.acknowledge(acks);
    }

    @Override
    public Heartbeat heartbeat(String workerId, Duration lease) {
        return queue.heartbeat(workerId, lease);
    }

    @Override
    public Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease) {
        return queue.heartbeat(workerId, held, lease);
    }

    @Override
    public Set<String> cancellationsFor(String workerId) {
        return queue.cancellationsFor(workerId);
    }

    @Override
    public Set<RunFence> release(Collection<RunFence> fences) {
        return queue.release(fences);
    }

    @Override
    public List<ExpiredLease> expiredLeases(int limit) {
        return queue.expiredLeases(limit);
    }

    @Override
    public Set<RunFence> recover(Collection<Acknowledgement> decisions) {
        return queue.recover(decisions);
    }
}
