package io.forgeflow.domain.port;

import java.time.Duration;

/**
 * Wakes idle workers when runs become due, so pickup takes milliseconds rather than a poll interval. Signals are
 * coalesced: many {@link #runsBecameDue()} calls in a short window cost one notification.
 */
public interface WorkSignal {

    /** Runs became due now (after a commit). Cheap and non-blocking. */
    void runsBecameDue();

    /** Blocks until a signal arrives or {@code timeout} passes; returns whether a signal arrived. */
    boolean await(Duration timeout) throws InterruptedException;
}
