package io.forgeflow.client.jdbc;

/**
 * What {@code forgeflow.enqueue()} returned: the job's and its run's ids, and whether this call created them
 * ({@code false}: the idempotency key was used before with the same request, and these are that job's ids).
 * {@code debounced}: a debounce joined the submission to the run named here (of the job named here); nothing new was
 * stored ({@code created} is false).
 */
public record Enqueued(String jobId, String runId, boolean created, boolean debounced) {
    /** A result without a debounce. */
    public Enqueued(String jobId, String runId, boolean created) {
        this(jobId, runId, created, false);
    }
}
