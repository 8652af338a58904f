package io.forgeflow.application.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when a test says so; a pause on it moves it by the pause instead of sleeping. */
final class TestTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    /** Every pause asked for, in nanoseconds. */
    final List<Long> parks = new CopyOnWriteArrayList<>();

    @Override
    public long nanos() {
        return nanos.get();
    }

    @Override
    public void park(long nanos) {
        parks.add(nanos);
        this.nanos.addAndGet(Math.max(0, nanos));
    }

    void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }

    /** The total of the pauses asked for since the last call. */
    Duration parkedSinceLast() {
        long total = 0;
        for (Long p : parks) {
            total += p;
        }
        parks.clear();
        return Duration.ofNanos(total);
    }
}
