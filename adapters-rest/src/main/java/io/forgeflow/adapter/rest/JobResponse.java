package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.port.ListedJob;

import java.util.Map;

/**
 * A job as the API shows it. Every field is present; absent values are null. Timestamps are RFC 3339 UTC. Secrets in
 * the payload's headers are shown as {@code "***"} ({@link PayloadRedaction}). {@code waiting_for}: what an active job
 * waits for before any worker can run it ({@code "handler send-receipt"}: no live embedded worker has its handler);
 * null when nothing. {@code payload_truncated} (an addition): a list item whose payload is over 64 KiB has it null and
 * this true ({@link ListedJob}); false everywhere else.
 * {@code retry}: the job's own retry policy ({@link RetryResponse}), null when the nodes' defaults apply.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"id", "name", "executor", "payload", "payload_truncated", "cron_expr", "run_at", "timezone", "priority", "max_attempts",
        "timeout_seconds", "catch_up", "idempotency_key", "queue", "concurrency_key", "max_concurrent", "overlap",
        "labels", "status", "next_run_at", "created_at", "updated_at", "submitted_via", "unique_key", "waiting_for",
        "trace_id", "retry"})
public record JobResponse(
        @JsonProperty("id") String id,
        @JsonProperty("name") String name,
        @JsonProperty("executor") String executor,
        @JsonProperty("payload") Map<String, Object> payload,
        @JsonProperty("payload_truncated") boolean payloadTruncated,
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
        @JsonProperty("trace_id") String traceId,
        @JsonProperty("retry") RetryResponse retry,
        @JsonProperty("labels") Map<String, String> labels) {

    static JobResponse of(Job job) {
        return of(job, false);
    }

    /** A list item: no payload, {@code payload_truncated}, when it was left out for its size. */
    static JobResponse of(ListedJob listed) {
        return of(listed.job(), listed.payloadTruncated());
    }

    private static JobResponse of(Job job, boolean payloadTruncated) {
        JobSpec s = job.spec();
        return new JobResponse(job.id(), s.name(), s.executor(),
                payloadTruncated ? null : PayloadRedaction.redact(s.payload()), payloadTruncated, s.cronExpr(),
                Timestamps.format(s.runAt()), s.timezone(), s.priority(), s.maxAttempts(), s.timeoutSeconds(),
                s.catchUp().wireName(), s.idempotencyKey(), s.queue(), s.concurrencyKey(), s.maxConcurrent(),
                s.overlap().wireName(), job.status().wireName(), Timestamps.format(job.nextRunAt()),
                Timestamps.format(job.createdAt()), Timestamps.format(job.updatedAt()), job.submittedVia(),
                s.uniqueKey(), null, TraceLinks.traceId(job.trace()), RetryResponse.of(s.retry()), s.labels());
    }

    /** The same job, waiting for {@code what} (null: for nothing). */
    JobResponse withWaitingFor(String what) {
        return new JobResponse(id, name, executor, payload, payloadTruncated, cronExpr, runAt, timezone, priority, maxAttempts,
                timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, status, nextRunAt,
                createdAt, updatedAt, submittedVia, uniqueKey, what, traceId, retry, labels);
    }
}
