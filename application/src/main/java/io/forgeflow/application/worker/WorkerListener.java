package io.forgeflow.application.worker;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;

/** What a worker reports as it goes (metrics); every method must be cheap and must not throw. */
public interface WorkerListener {
    WorkerListener NONE = new WorkerListener() {
    };

    /** A claim returned these runs (possibly none). */
    default void claimed(java.util.List<Run> runs) {
    }

    /** An attempt ended with this outcome after running for {@code took}; the run moves to {@code next}. */
    default void finished(Run run, AttemptOutcome outcome, RunStatus next, Duration took) {
    }

    /** A failed or timed-out attempt of {@code run} was decided: retry (maybe after a Retry-After) or dead. */
    default void failureDecided(Run run, FailureDecision decision) {
    }

    /** A write for this fence was discarded: the lease had been lost (late ack, failed heartbeat). */
    default void fenceLost(RunFence fence, String what) {
    }

    /** How many executions run now. */
    default void busySlots(int busy) {
    }
}
