package io.forgeflow.domain.port;

import io.forgeflow.domain.backoff.RetryOverride;

import java.util.Objects;

/**
 * A running run whose lease has expired, as the leader's rescuer reads it ({@link RunQueue#expiredLeases}): the fence
 * of the attempt that was lost, its job, its attempt budget, whether an operator had asked to cancel it, and the run's
 * own retry policy (null: the rescuing node's defaults).
 */
public record ExpiredLease(RunFence fence, String jobId, int maxAttempts, boolean cancelRequested, RetryOverride retry) {
    public ExpiredLease {
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(jobId, "jobId");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        }
    }

    /** A lease of a run without a retry policy of its own. */
    public ExpiredLease(RunFence fence, String jobId, int maxAttempts, boolean cancelRequested) {
        this(fence, jobId, maxAttempts, cancelRequested, null);
    }
}
