package io.forgeflow.client;

import java.time.Instant;
import java.util.List;

/**
 * One execution of a job. {@code status} is {@code pending}, {@code running}, {@code succeeded}, {@code dead} or
 * {@code cancelled}; {@code attempt} counts the attempts started so far. {@link #attempts()} is filled only by
 * {@link ForgeFlowClient#getRun(String)} (and is null in lists).
 */
public record Run(
        String id,
        String jobId,
        String status,
        int attempt,
        int maxAttempts,
        int priority,
        Instant scheduledFor,
        Instant startedAt,
        Instant finishedAt,
        String workerId,
        Instant leaseExpiresAt,
        String output,
        String error,
        List<Attempt> attempts) {

    public static final String PENDING = "pending";
    public static final String RUNNING = "running";
    public static final String SUCCEEDED = "succeeded";
    public static final String DEAD = "dead";
    public static final String CANCELLED = "cancelled";

    /** The attempt history, empty when the server did not send it. */
    public List<Attempt> attemptsOrEmpty() {
        return attempts == null ? List.of() : attempts;
    }
}
