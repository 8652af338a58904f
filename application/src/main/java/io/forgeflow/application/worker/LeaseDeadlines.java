package io.forgeflow.application.worker;

import io.forgeflow.domain.port.RunFence;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Until when each attempt's lease can be trusted, on the worker's monotonic clock: from the start of the last call
 * that confirmed it (its claim, then each heartbeat that extended it) plus the lease less one heartbeat interval. The
 * database sets {@code lease_expires_at} later than that start, so the worker always stops first.
 *
 * <p>Written by the {@link LeaseKeeper} (a claim registers an attempt, a heartbeat confirms it); the execution slots
 * drop an attempt when it ends. Thread-safe.
 */
final class LeaseDeadlines {
    private final Ticker ticker;
    private final long trustedNanos;
    private final Map<RunFence, Entry> entries = new ConcurrentHashMap<>();

    /** Until when the lease is trusted (ticker nanos). */
    private record Entry(AtomicLong trustedUntil) {
    }

    /** @param trustedNanos how long a confirmation is trusted: the lease less one heartbeat interval */
    LeaseDeadlines(Ticker ticker, long trustedNanos) {
        this.ticker = ticker;
        this.trustedNanos = trustedNanos;
    }

    /** A claim asked at {@code askedNanos} returned this attempt: trusted until then plus the trusted span. */
    void claimed(RunFence fence, long askedNanos) {
        entries.put(fence, new Entry(new AtomicLong(askedNanos + trustedNanos)));
    }

    /** A heartbeat started at {@code startedNanos} extended this attempt's lease. */
    void confirmed(RunFence fence, long startedNanos) {
        Entry entry = entries.get(fence);
        if (entry != null) {
            long until = startedNanos + trustedNanos;
            entry.trustedUntil().accumulateAndGet(until, (a, b) -> b - a > 0 ? b : a);
        }
    }

    /** The registered attempts whose deadline has passed. */
    List<RunFence> expired() {
        long now = ticker.nanos();
        List<RunFence> expired = new ArrayList<>();
        entries.forEach((fence, entry) -> {
            if (now - entry.trustedUntil().get() >= 0) {
                expired.add(fence);
            }
        });
        return expired;
    }

    /** Every registered attempt. */
    List<RunFence> fences() {
        return new ArrayList<>(entries.keySet());
    }

    /** The attempt ended: nothing to trust any more. */
    void ended(RunFence fence) {
        entries.remove(fence);
    }
}
