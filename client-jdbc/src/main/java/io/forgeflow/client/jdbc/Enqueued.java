package io.forgeflow.client.jdbc;

/**
 * What {@code forgeflow.enqueue()} returned: the job's and its run's ids, and whether this call created them
 * ({@code false}: the idempotency key was used before with the same request, and these are that job's ids).
 */
public record Enqueued(String jobId, String runId, boolean created) {
}
