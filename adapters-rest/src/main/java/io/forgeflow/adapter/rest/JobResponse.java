package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;

import java.util.Map;

/**
 * A job as the API shows it. Every field is present; absent values are null. Timestamps are RFC 3339 UTC. Secrets in
 * the payload's headers are shown as {@code "***"} ({@link PayloadRedaction}). {@code waiting_for}: what an active job
 * waits for before any worker can run it ({@code "handler send-receipt"}: no live embedded worker has its handler);
 * null when nothing.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"id", "name", "executor", "payload", "cron_expr", "run_at", "timezone", "priority", "max_attempts",
        "timeout_seconds", "catch_up", "idempotency_key", "queue", "concurrency_key", "max_concurrent", "overlap",
        "labels", "status", "next_run_at", "created_at", "updated_at", "submitted_via", "unique_key", "waiting_for"})
public record JobResponse(
        @JsonProperty("id") String id,
        @JsonProperty("name") String name,
        @JsonProperty("executor") String executor,
        @JsonProperty("payload") Map<String, Object> payload,
        @JsonProperty("cron_expr") String cronExpr,
        @JsonProperty("run_at") String runAt,
        @JsonProperty("timezone") String timezone,
        @JsonProperty("priority") int priority,
        @JsonProperty("max_attempts") int maxAttempts,
        @JsonProperty("timeout_seconds") int timeoutSeconds,
        @JsonProperty("catch_up") String catchUp,
        @JsonProperty("idempotency_key") String idempotencyKey,
        @JsonProperty("queue") String queue,
        @JsonProperty("concurrency_key") String concurrencyKey,
        @JsonProperty("max_concurrent") Integer maxConcurrent,
        @JsonProperty("overlap") String overlap,
        @JsonProperty("status") String status,
        @JsonProperty("next_run_at") String nextRunAt,
        @JsonProperty("created_at") String createdAt,
        @JsonProperty("updated_at") String updatedAt,
        @JsonProperty("submitted_via") String submittedVia,
        @JsonProperty("unique_key") String uniqueKey,
        @JsonProperty("waiting_for") String waitingFor,
        @JsonProperty("labels") Map<String, String> labels) {

    static JobResponse of(Job job) {
        JobSpec s = job.spec();
        return new JobResponse(job.id(), s.name(), s.executor(), PayloadRedaction.redact(s.payload()), s.cronExpr(),
                Timestamps.format(s.runAt()), s.timezone(), s.priority(), s.maxAttempts(), s.timeoutSeconds(),
                s.catchUp().wireName(), s.idempotencyKey(), s.queue(), s.concurrencyKey(), s.maxConcurrent(),
                s.overlap().wireName(), job.status().wireName(), Timestamps.format(job.nextRunAt()),
                Timestamps.format(job.createdAt()), Timestamps.format(job.updatedAt()), job.submittedVia(),
                s.uniqueKey(), null, s.labels());
    }

    /** The same job, waiting for {@code what} (null: for nothing). */
    JobResponse withWaitingFor(String what) {
        return new JobResponse(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts,
                timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, status, nextRunAt,
                createdAt, updatedAt, submittedVia, uniqueKey, what, labels);
    }
}
