package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.TraceContext;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A run as the API shows it. Every field is present (null when it has no value), except {@code attempts}, which
 * only {@code GET /api/runs/{id}} includes. {@code cancel_requested} (an addition to API.md's list) tells that a
 * running run was asked to stop and its worker has not acknowledged yet. {@code waiting_for} (also an addition) says
 * what a pending run waits for before any worker can take it ({@code "handler send-receipt"}: no live embedded worker
 * has its handler); null when nothing. {@code trace_id} is the run's trace (W3C, 32 hex digits; null when not traced)
 * and {@code trace_url} a link to it ({@code FORGEFLOW_TRACE_URL_TEMPLATE}; null when unset).
 * {@code retry}: the retry policy the run carries (its job's when the run was made, or after a PATCH while it was
 * pending), null when the nodes' defaults apply. {@code snoozes}: how many of its attempts ended snoozed (the run
 * asked to come back later, without spending an attempt). {@code tenant}: its job's tenant (README "Tenants").
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"id", "job_id", "status", "attempt", "max_attempts", "priority", "scheduled_for", "started_at",
        "finished_at", "worker_id", "lease_expires_at", "output", "output_truncated", "error", "cancel_requested",
        "waiting_for", "trace_id", "trace_url", "retry", "labels", "snoozes", "tenant", "attempts"})
public record RunResponse(
        @JsonProperty("id") String id,
        @JsonProperty("job_id") String jobId,
        @JsonProperty("status") String status,
        @JsonProperty("attempt") int attempt,
        @JsonProperty("max_attempts") int maxAttempts,
        @JsonProperty("priority") int priority,
        @JsonProperty("scheduled_for") String scheduledFor,
        @JsonProperty("started_at") String startedAt,
        @JsonProperty("finished_at") String finishedAt,
        @JsonProperty("worker_id") String workerId,
        @JsonProperty("lease_expires_at") String leaseExpiresAt,
        @JsonProperty("output") String output,
        @JsonProperty("output_truncated") boolean outputTruncated,
        @JsonProperty("error") String error,
        @JsonProperty("cancel_requested") boolean cancelRequested,
        @JsonProperty("waiting_for") String waitingFor,
        @JsonProperty("trace_id") String traceId,
        @JsonProperty("trace_url") String traceUrl,
        @JsonProperty("retry") RetryResponse retry,
        @JsonProperty("attempts") @JsonInclude(JsonInclude.Include.NON_NULL) List<AttemptResponse> attempts,
        @JsonProperty("labels") Map<String, String> labels,
        @JsonProperty("snoozes") int snoozes,
        @JsonProperty("tenant") String tenant) {

    static RunResponse of(Run run) {
        return of(run, null);
    }

    /** A list item: the output's tail, {@code output_truncated} when it was cut. */
    static RunResponse of(ListedRun listed) {
        return of(listed.run(), listed.outputTruncated(), null);
    }

    static RunResponse of(Run run, List<Attempt> attempts) {
        return of(run, false, attempts);
    }

    /** The same run, waiting for {@code what} (null: for nothing). */
    RunResponse withWaitingFor(String what) {
        return new RunResponse(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt,
                workerId, leaseExpiresAt, output, outputTruncated, error, cancelRequested, what, traceId, traceUrl,
                retry, attempts, labels, snoozes, tenant);
    }

    private static RunResponse of(Run run, boolean outputTruncated, List<Attempt> attempts) {
        return new RunResponse(run.id(), run.jobId(), run.status().wireName(), run.attempt(), run.maxAttempts(),
                run.priority(), Timestamps.format(run.scheduledFor()), Timestamps.format(run.startedAt()),
                Timestamps.format(run.finishedAt()), run.workerId(), Timestamps.format(run.leaseExpiresAt()),
                run.output(), outputTruncated, run.error(), run.cancelRequested(), null,
                TraceLinks.traceId(context(run)), TraceLinks.url(context(run)),
                RetryResponse.of(run.retry()),
                attempts == null ? null : attempts.stream().map(AttemptResponse::of).collect(Collectors.toList()),
                run.labels(), run.snoozes(), run.tenant());
    }

    private static TraceContext context(Run run) {
        return run.trace() == null ? null : run.trace().context();
    }
}
