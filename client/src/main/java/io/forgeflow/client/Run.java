package io.forgeflow.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One execution of a job. {@code status} is {@code pending}, {@code running}, {@code succeeded}, {@code dead} or
 * {@code cancelled}; {@code attempt} counts the attempts started so far. {@link #attempts()} is filled only by
 * {@link ForgeFlowClient#getRun(String)} (and is null in lists). {@code labels}: its job's, empty when none.
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
        List<Attempt> attempts,
        Map<String, String> labels) {

    public static final String PENDING = "pending";
    public static final String RUNNING = "running";
    public static final String SUCCEEDED = "succeeded";
    public static final String DEAD = "dead";
    public static final String CANCELLED = "cancelled";

    @com.fasterxml.jackson.annotation.JsonCreator
    public Run {
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
    }

    /** A run without labels (the fields before labels). */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, Map.of());
    }

    /** The attempt history, empty when the server did not send it. */
    public List<Attempt> attemptsOrEmpty() {
        return attempts == null ? List.of() : attempts;
    }
}
