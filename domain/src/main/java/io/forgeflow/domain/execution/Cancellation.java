package io.forgeflow.domain.execution;

import java.util.ArrayList;
import java.util.List;

/**
 * A one-way latch an executor watches to stop early: an operator cancelled the run, the worker lost its lease,
 * or the node is shutting down. Thread-safe; callbacks registered after cancellation run at once.
 */
public final class Cancellation {
    private List<Runnable> callbacks = new ArrayList<>();
    private String reason;

    /** Cancels (first call wins) and runs the registered callbacks on the calling thread. */
    public void cancel(String why) {
        List<Runnable> toRun;
        synchronized (this) {
            if (reason != null) {
                return;
            }
            reason = why == null ? "cancelled" : why;
            toRun = callbacks;
            callbacks = new ArrayList<>(); // later registrations run at once; this one is never read again
        }
        toRun.forEach(Runnable::run);
    }

    public synchronized boolean isCancelled() {
        return reason != null;
    }

    /** Why it was cancelled, or null. */
    public synchronized String reason() {
        return reason;
    }

    public void onCancel(Runnable callback) {
        synchronized (this) {
            if (reason == null) {
                callbacks.add(callback);
                return;
            }
        }
        callback.run();
    }
}
