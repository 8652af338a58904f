package io.forgeflow.application.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it. Thread-safe; clocks made by {@link #withZone} share this
 * clock's time, so moving one moves them all.
 */
public final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    public MutableClock(Instant start) {
        this(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
    }

    private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** A clock standing at an ISO-8601 instant such as {@code 2025-01-01T00:00:00Z}. */
    public static MutableClock at(String instant) {
        return new MutableClock(Instant.parse(instant));
    }

    /** Moves the clock forward (or back, for a negative duration). */
    public void advance(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }

    public void set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
        return new MutableClock(now, newZone);
    }

    @Override
    public String toString() {
        return "MutableClock[" + now.get() + "]";
    }
}
