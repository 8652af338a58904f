package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.run.Attempt;

/**
 * One attempt of a run; {@code finished_at} and {@code outcome} are null while it runs; {@code retry_after_seconds}
 * is the downstream's Retry-After as applied, null when it gave none.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"attempt", "worker_id", "started_at", "finished_at", "outcome", "error", "retry_after_seconds"})
public record AttemptResponse(
        @JsonProperty("attempt") int attempt,
        @JsonProperty("worker_id") String workerId,
        @JsonProperty("started_at") String startedAt,
        @JsonProperty("finished_at") String finishedAt,
        @JsonProperty("outcome") String outcome,
        @JsonProperty("error") String error,
        @JsonProperty("retry_after_seconds") Integer retryAfterSeconds) {

    static AttemptResponse of(Attempt a) {
        return new AttemptResponse(a.attempt(), a.workerId(), Timestamps.format(a.startedAt()),
                Timestamps.format(a.finishedAt()), a.outcome() == null ? null : a.outcome().wireName(), a.error(),
                a.retryAfterSeconds());
    }
}
