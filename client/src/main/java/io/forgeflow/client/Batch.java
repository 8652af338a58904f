package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A batch of jobs ({@code POST /api/batches}, {@code GET /api/batches/{id}}): the counts of its jobs by the status of
 * their latest run, {@code status} {@code open} or {@code completed} (every job ended; {@code completedAt} set), and
 * the job made to run on completion ({@code onCompleteJobId}, null when none). {@code jobIds} (in the order of the
 * request's jobs) and {@code refs} (ref to job id) come with the answer to the submission; they are empty from
 * {@code GET} (and left out when this record is written as JSON, as the server leaves them out). {@code tenant}: the
 * tenant the batch belongs to, as the server sent it; null when the answer has no {@code tenant} field (a server that
 * predates tenants).
 */
public record Batch(
        String id,
        String name,
        String idempotencyKey,
        Instant createdAt,
        Instant completedAt,
        long total,
        long waiting,
        long pending,
        long running,
        long succeeded,
        long dead,
        long cancelled,
        String onCompleteJobId,
        String status,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> jobIds,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> refs,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        String tenant) {

    public static final String OPEN = "open";
    public static final String COMPLETED = "completed";

    @JsonCreator
    public Batch {
        jobIds = jobIds == null ? List.of() : List.copyOf(jobIds);
        refs = refs == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(refs));
    }

    /** A batch without a tenant (the fields before {@code tenant}; {@link #tenant()} null). */
    public Batch(String id, String name, String idempotencyKey, Instant createdAt, Instant completedAt, long total,
                 long waiting, long pending, long running, long succeeded, long dead, long cancelled,
                 String onCompleteJobId, String status, List<String> jobIds, Map<String, String> refs) {
        this(id, name, idempotencyKey, createdAt, completedAt, total, waiting, pending, running, succeeded, dead,
                cancelled, onCompleteJobId, status, jobIds, refs, null);
    }

    /** Whether every job of the batch has ended. */
    public boolean isCompleted() {
        return COMPLETED.equals(status);
    }

    /** The jobs that have ended: succeeded, dead or cancelled. */
    public long ended() {
        return succeeded + dead + cancelled;
    }
}
