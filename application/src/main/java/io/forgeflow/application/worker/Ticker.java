package io.forgeflow.application.worker;

/** A monotonic clock in nanoseconds (as {@link System#nanoTime()}); tests pass one they move by hand. */
@FunctionalInterface
public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long nanos();
}
