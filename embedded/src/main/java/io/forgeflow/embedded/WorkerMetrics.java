package io.forgeflow.embedded;

import java.time.Duration;

/**
 * What an embedded worker reports as it goes, for the application's own metrics (a Micrometer or Dropwizard registry,
 * or logs): implement the methods you want. Called on the worker's threads: every method must be cheap and should
 * not throw (what it throws is logged and dropped).
 */
public interface WorkerMetrics {
    /** Reports nothing. */
    WorkerMetrics NONE = new WorkerMetrics() {
    };

    /** A claim took {@code runs} runs (possibly none). */
    default void claimed(int runs) {
    }

    /**
     * An attempt of {@code handler} ended after {@code took}: {@code outcome} is {@code succeeded}, {@code failed},
     * {@code timed_out} or {@code cancelled}; the run is now {@code next} ({@code succeeded}, {@code pending} for a
     * retry, {@code dead} or {@code cancelled}).
     */
    default void attemptFinished(String handler, String outcome, String next, Duration took) {
    }

    /** A result or heartbeat of this attempt was discarded: the worker had lost the run's lease. */
    default void leaseLost(String runId, int attempt) {
    }

    /** How many attempts execute now. */
    default void busySlots(int busy) {
    }

    /**
     * A handler did not end within the interrupt grace after it was interrupted (a timeout or a cancellation): its
     * attempt was ended without it, and its thread still runs. Also logged at ERROR.
     */
    default void handlerIgnoredInterruption(String handler, String runId, int attempt) {
    }

    /** The scheduler role (when asked for) recovered this many runs whose worker had vanished. */
    default void leasesRecovered(int runs) {
    }
}
