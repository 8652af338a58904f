package io.forgeflow.adapter.postgres;

import java.time.Clock;
import java.time.Instant;

/**
 * The {@code :now} parameter of every statement: null in production, so that {@code coalesce(:now, now())} reads the
 * database clock (no node's skewed clock decides what is due or whose lease expired); a fixed instant in tests.
 */
final class DbClock {
    private final Clock testClock;

    DbClock(Clock testClock) {
        this.testClock = testClock;
    }

    /** Null (the database decides), or the test clock's instant. */
    Instant now() {
        return testClock == null ? null : testClock.instant();
    }

    /** When a change committed, for run events: the test clock's instant, else this node's clock. */
    Instant eventTime() {
        return testClock == null ? Instant.now() : testClock.instant();
    }
}
