package io.forgeflow.application.worker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when a test says so. */
final class TestTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long nanos() {
        return nanos.get();
    }

    void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }
}
