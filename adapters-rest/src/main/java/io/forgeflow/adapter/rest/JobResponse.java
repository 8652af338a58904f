package io.forgeflow.adapter.rest;

import io.forgeflow.domain.port.Workflows;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.port.ListedJob;

import java.util.Map;

/**
 * A job as the API shows it. Every field is present; absent values are null. Timestamps are RFC 3339 UTC. Secrets in
 * the payload's headers are shown as {@code "***"} ({@link io.forgeflow.domain.job.PayloadRedaction}). {@code waiting_for}: what an active job
 * waits for before any worker can run it ({@code "handler send-receipt"}: no live embedded worker has its handler);
 * null when nothing. {@code payload_truncated} (an addition): a list item whose payload is over 64 KiB has it null and
 * this true ({@link ListedJob}); false everywhere else.
 * {@code retry}: the job's own retry policy ({@link RetryResponse}), null when the nodes' defaults apply.
 * Workflows (API.md): {@code depends_on} ([] when none), {@code on_parent_failure}, {@code batch_id}; {@code parents}
 * and {@code children} only in the answer of {@code GET /api/jobs/{id}}. {@code sequence_key} and {@code on_dead}: the
 * sequence its runs join (README "Flow control"), null for none. {@code notify}: where the job's notices go
 * ({@code {"url": ..., "on": [...]}}), null for none. {@code dead_streak}: a recurring job with
 * {@code pause_after_failures}: its runs in a row that ended dead so far (0 for other jobs).
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"id", "name", "executor", "payload", "payload_truncated", "cron_expr", "run_at", "timezone", "priority", "max_attempts",
        "timeout_seconds", "catch_up", "idempotency_key", "queue", "concurrency_key", "max_concurrent", "overlap",
        "labels", "status", "next_run_at", "created_at", "updated_at", "submitted_via", "unique_key", "waiting_for",
        "trace_id", "retry", "start_at", "end_at", "max_runs", "jitter_seconds", "pause_after_failures", "fired_runs",
        "dead_streak", "paused_note", "paused_by", "notify", "depends_on", "on_parent_failure", "batch_id", "sequence_key", "on_dead", "debounce",
        "throttle", "tenant", "parents", "children", "debounced_into"})
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
        @JsonProperty("labels") Map<String, String> labels,
        @JsonProperty("depends_on") List<String> dependsOn,
        @JsonProperty("on_parent_failure") String onParentFailure,
        @JsonProperty("batch_id") String batchId,
        @JsonProperty("sequence_key") String sequenceKey,
        @JsonProperty("on_dead") String onDead,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("parents") List<LinkedJobResponse> parents,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("children") List<LinkedJobResponse> children,
        @JsonProperty("start_at") String startAt,
        @JsonProperty("end_at") String endAt,
        @JsonProperty("max_runs") Integer maxRuns,
        @JsonProperty("jitter_seconds") int jitterSeconds,
        @JsonProperty("pause_after_failures") Integer pauseAfterFailures,
        @JsonProperty("fired_runs") int firedRuns,
        @JsonProperty("dead_streak") int deadStreak,
        @JsonProperty("paused_note") String pausedNote,
        @JsonProperty("paused_by") String pausedBy,
        @JsonProperty("notify") NotifyResponse notices,
        @JsonProperty("debounce") DebounceResponse debounce,
        @JsonProperty("throttle") ThrottleResponse throttle,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("debounced_into") String debouncedInto,
        @JsonProperty("tenant") String tenant) {

    /** A job's {@code debounce} as stored (defaults applied). */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"key", "period_seconds", "max_wait_seconds", "edge"})
    public record DebounceResponse(@JsonProperty("key") String key, @JsonProperty("period_seconds") int periodSeconds,
                                   @JsonProperty("max_wait_seconds") Integer maxWaitSeconds,
                                   @JsonProperty("edge") String edge) {
        static DebounceResponse of(io.forgeflow.domain.job.Debounce d) {
            return d == null ? null : new DebounceResponse(d.key(), d.periodSeconds(), d.maxWaitSeconds(), d.edge());
        }
    }

    /** A job's {@code throttle}. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"key", "count", "per_seconds"})
    public record ThrottleResponse(@JsonProperty("key") String key, @JsonProperty("count") int count,
                                   @JsonProperty("per_seconds") int perSeconds) {
        static ThrottleResponse of(io.forgeflow.domain.job.Throttle t) {
            return t == null ? null : new ThrottleResponse(t.key(), t.count(), t.perSeconds());
        }
    }

    /** A job's {@code notify}: the URL its notices go to and the events they are sent for. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"url", "on"})
    public record NotifyResponse(@JsonProperty("url") String url, @JsonProperty("on") List<String> on) {
        static NotifyResponse of(io.forgeflow.domain.job.Notify notify) {
            return notify == null ? null : new NotifyResponse(notify.url(), notify.on());
        }
    }

    /** A job linked to another in a workflow: {@code parents} and {@code children} of {@code GET /api/jobs/{id}}. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"id", "name", "status", "run_status"})
    public record LinkedJobResponse(@JsonProperty("id") String id, @JsonProperty("name") String name,
                                    @JsonProperty("status") String status,
                                    @JsonProperty("run_status") String runStatus) {
        static List<LinkedJobResponse> of(List<Workflows.LinkedJob> jobs) {
            return jobs.stream().map(j -> new LinkedJobResponse(j.id(), j.name(), j.status(), j.runStatus())).toList();
        }
    }

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
                payloadTruncated ? null : io.forgeflow.domain.job.PayloadRedaction.redact(s.payload()), payloadTruncated, s.cronExpr(),
                Timestamps.format(s.runAt()), s.timezone(), s.priority(), s.maxAttempts(), s.timeoutSeconds(),
                s.catchUp().wireName(), s.idempotencyKey(), s.queue(), s.concurrencyKey(), s.maxConcurrent(),
                s.overlap().wireName(), job.status().wireName(), Timestamps.format(job.nextDueAt()),
                Timestamps.format(job.createdAt()), Timestamps.format(job.updatedAt()), job.submittedVia(),
                s.uniqueKey(), null, TraceLinks.traceId(job.trace()), RetryResponse.of(s.retry()), s.labels(), List.of(),
                null, null, s.sequenceKey(), s.sequenceOnDead(), null, null, Timestamps.format(s.schedule().startAt()),
                Timestamps.format(s.schedule().endAt()), s.schedule().maxRuns(), s.schedule().jitter(),
                s.schedule().pauseAfterFailures(), job.schedule().firedRuns(), job.schedule().deadStreak(),
                job.schedule().pausedNote(),
                job.schedule().pausedBy(), NotifyResponse.of(s.notices()), DebounceResponse.of(s.debounce()),
                ThrottleResponse.of(s.throttle()), null, job.tenant());
    }

    /**
     * The same job with its place in a workflow ({@code links}: null for none); with {@code detailed}, also its
     * parents and children (GET of one job).
     */
    JobResponse withWorkflow(Workflows.JobLinks links, boolean detailed) {
        List<String> parentIds = links == null ? List.of() : links.dependencies().parents();
        String policy = links == null || links.dependencies().onParentFailure() == null ? null
                : links.dependencies().onParentFailure().wireName();
        return new JobResponse(id, name, executor, payload, payloadTruncated, cronExpr, runAt, timezone, priority,
                maxAttempts, timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap,
                status, nextRunAt, createdAt, updatedAt, submittedVia, uniqueKey, waitingFor, traceId, retry, labels,
                parentIds, policy, links == null ? null : links.batchId(), sequenceKey, onDead,
                detailed ? LinkedJobResponse.of(links == null ? List.of() : links.parents()) : null,
                detailed ? LinkedJobResponse.of(links == null ? List.of() : links.children()) : null, startAt, endAt,
                maxRuns, jitterSeconds, pauseAfterFailures, firedRuns, deadStreak, pausedNote, pausedBy, notices, debounce,
                throttle, debouncedInto, tenant);
    }

    /** The same job, waiting for {@code what} (null: for nothing). */
    JobResponse withWaitingFor(String what) {
        return new JobResponse(id, name, executor, payload, payloadTruncated, cronExpr, runAt, timezone, priority, maxAttempts,
                timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, status, nextRunAt,
                createdAt, updatedAt, submittedVia, uniqueKey, what, traceId, retry, labels, dependsOn, onParentFailure,
                batchId, sequenceKey, onDead, parents, children, startAt, endAt, maxRuns, jitterSeconds,
                pauseAfterFailures, firedRuns, deadStreak, pausedNote, pausedBy, notices, debounce, throttle, debouncedInto,
                tenant);
    }

    /** The answer to a submission a debounce joined to run {@code runId} (null: none). */
    JobResponse withDebouncedInto(String runId) {
        return new JobResponse(id, name, executor, payload, payloadTruncated, cronExpr, runAt, timezone, priority, maxAttempts,
                timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, status, nextRunAt,
                createdAt, updatedAt, submittedVia, uniqueKey, waitingFor, traceId, retry, labels, dependsOn,
                onParentFailure, batchId, sequenceKey, onDead, parents, children, startAt, endAt, maxRuns,
                jitterSeconds, pauseAfterFailures, firedRuns, deadStreak, pausedNote, pausedBy, notices, debounce,
                throttle, runId, tenant);
    }
}
