package io.forgeflow.application.worker;

import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.Run;

import java.util.concurrent.CountDownLatch;

/** An attempt this worker executes now (or has claimed and is about to start); owned by {@link ExecutionSlots}. */
final class InFlight {
    final Run run;
    final RunFence fence;
    final int lane;
    final Cancellation cancellation = new Cancellation();
    final CountDownLatch ended = new CountDownLatch(1);
    /** Its lease is lost or untrusted: the result is discarded, never acknowledged. */
    volatile boolean leaseLost;
    /** Given back to the queue (the drain), not acknowledged. */
    volatile boolean released;
    volatile boolean finished;
    volatile boolean started;
    /** The attempt's span, once it executes (the executing thread's, read by finish on the same thread). */
    io.forgeflow.application.trace.Tracing.Span span;

    InFlight(Run run, RunFence fence, int lane) {
        this.run = run;
        this.fence = fence;
        this.lane = lane;
    }
}
