package io.forgeflow.application.worker;

/** Why a worker stopped an attempt: the cancellation's reason, which the executor reports back. */
final class StopReasons {
    static final String OPERATOR = "cancelled by an operator";
    static final String LEASE_LOST = "lease lost: another worker may own this run now";
    static final String SHUTDOWN = "worker shutting down: run released back to the queue";
    static final String WATCHDOG = "timed out: the executor did not stop by itself";
    static final String UNTRUSTED = "lease can no longer be trusted: no heartbeat confirmed it in time";
    static final String RECLAIMED = "claimed again as a newer attempt: this attempt is stopped first";

    private StopReasons() {
    }
}
