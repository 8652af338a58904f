package io.forgeflow.admin.support;

import java.time.Duration;

/** Repeats an action on the UI thread: a JavaFX timeline in the app, a hand-cranked ticker in tests. */
@FunctionalInterface
public interface Ticker {

    /** Runs action on the UI thread every period until the returned handle is closed. */
    Cancellable every(Duration period, Runnable action);

    /** A handle that stops what it started; closing twice is harmless. */
    @FunctionalInterface
    interface Cancellable extends AutoCloseable {
        @Override
        void close();
    }
}
