package io.forgeflow.adapter.postgres;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it. */
final class TestClock extends Clock {
    private volatile Instant now;

    private TestClock(Instant now) {
        this.now = now;
    }

    static TestClock at(String instant) {
        return new TestClock(Instant.parse(instant));
    }

    void advance(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
