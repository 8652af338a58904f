package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One execution of a job. {@code status} is {@code waiting} (for its job's parents: no worker claims it),
 * {@code pending}, {@code running}, {@code succeeded}, {@code dead} or {@code cancelled}; {@code attempt} counts the attempts started so far. {@link #attempts()} is filled only by
 * {@link ForgeFlowClient#getRun(String)} (and is null in lists). {@code waitingFor} says what a pending run waits for
 * before any worker can take it ({@code "handler send-receipt"}: no live embedded worker has the handler of its
 * {@code java} job); null when nothing, and from a server that predates it.
 * {@code retry}: the retry backoff the run carries (its job's), null when the server's defaults apply.
 * {@code labels}: its job's, empty when none.
 * {@code traceId}: the W3C trace the run belongs to (its job's submission's, or a trace of its own for a cron tick),
 * null when it has no trace context or the server predates it; {@code traceUrl}: a link to that trace in a trace
 * viewer, null unless the server sets {@code FORGEFLOW_TRACE_URL_TEMPLATE}.
 * {@code snoozes}: how many of its attempts ended snoozed (the run asked to come back later without spending an
 * attempt, README "Flow control"); 0 from a server that predates it.
 * {@code tenant}: the tenant of its job ({@code default} for runs made before tenants), as the server sent it; null
 * when the answer has no {@code tenant} field (a server that predates tenants).
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
        String waitingFor,
        Retry retry,
        Map<String, String> labels,
        String traceId,
        String traceUrl,
        int snoozes,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        String tenant) {

    /** Waits for the parents of its job ({@code depends_on}); becomes pending, or cancelled, when they end. */
    public static final String WAITING = "waiting";
    public static final String PENDING = "pending";
    public static final String RUNNING = "running";
    public static final String SUCCEEDED = "succeeded";
    public static final String DEAD = "dead";
    public static final String CANCELLED = "cancelled";

    @JsonCreator
    public Run {
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
    }

    /** A run without a tenant (the fields before {@code tenant}; {@link #tenant()} null). */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, String waitingFor, Retry retry, Map<String, String> labels,
               String traceId, String traceUrl, int snoozes) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, waitingFor, retry, labels, traceId, traceUrl, snoozes, null);
    }

    /** A run that never snoozed (the fields before {@code snoozes}). */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, String waitingFor, Retry retry, Map<String, String> labels,
               String traceId, String traceUrl) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, waitingFor, retry, labels, traceId, traceUrl, 0);
    }

    /** A run without trace (the fields before {@code trace_id}). */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, String waitingFor, Retry retry, Map<String, String> labels) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, waitingFor, retry, labels, null, null, 0);
    }

    /** A run waiting for nothing (the fields before {@code waiting_for}). */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, (String) null, (Retry) null, Map.of());
    }

    /** A run with what it waits for, without a retry policy of its own. */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, String waitingFor) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, waitingFor, (Retry) null, Map.of());
    }

    /** A run with its retry policy, waiting for nothing. */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, Retry retry) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, (String) null, retry, Map.of());
    }

    /** A run with what it waits for and its retry policy, without labels (the fields before labels). */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, String waitingFor,
               Retry retry) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, waitingFor, retry, Map.of());
    }

    /** A run with labels, waiting for nothing, without a retry policy of its own. */
    public Run(String id, String jobId, String status, int attempt, int maxAttempts, int priority, Instant scheduledFor,
               Instant startedAt, Instant finishedAt, String workerId, Instant leaseExpiresAt, String output,
               String error, List<Attempt> attempts, Map<String, String> labels) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, attempts, (String) null, (Retry) null, labels);
    }

    /** The attempt history, empty when the server did not send it. */
    public List<Attempt> attemptsOrEmpty() {
        return attempts == null ? List.of() : attempts;
    }
}
