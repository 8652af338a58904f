package io.forgeflow.embedded;

import java.time.Duration;

/**
 * The stop signal of one attempt, for handlers that run long: check it between steps, or wait on it instead of
 * sleeping. It fires once, with a reason: an operator cancelled the run, the attempt timed out, the worker could no
 * longer vouch for its lease, or the worker is stopping. The handler's thread is interrupted at the same moment.
 */
public interface JobCancellation {

    boolean isCancelled();

    /** Why it fired, or null while it has not. */
    String reason();

    /** Throws {@link java.util.concurrent.CancellationException} (with the reason) once it has fired. */
    void throwIfCancelled();

    /** Waits up to {@code max} for it to fire; true when it has. */
    boolean await(Duration max) throws InterruptedException;

    /** Runs {@code callback} when it fires (at once, on this thread, if it already has). */
    void onCancel(Runnable callback);
}
