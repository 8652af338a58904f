package io.forgeflow.domain.port;

import java.util.Objects;

/**
 * A running run whose lease has expired, as the leader's rescuer reads it ({@link RunQueue#expiredLeases}): the fence
 * of the attempt that was lost, its job, its attempt budget, and whether an operator had asked to cancel it.
 */
public record ExpiredLease(RunFence fence, String jobId, int maxAttempts, boolean cancelRequested) {
    public ExpiredLease {
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(jobId, "jobId");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        }
    }
}
