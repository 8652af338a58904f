package io.forgeflow.domain.port;

import java.util.Objects;

/**
 * Names one attempt of one run as held by one worker. Every write a worker makes is guarded by all three:
 * {@code WHERE id = :runId AND status = 'running' AND worker_id = :workerId AND attempt = :attempt}. A worker whose
 * lease expired (and whose run someone else now holds, or holds again under a new attempt) writes nothing.
 */
public record RunFence(String runId, String workerId, int attempt) {
    public RunFence {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(workerId, "workerId");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        }
    }
}
