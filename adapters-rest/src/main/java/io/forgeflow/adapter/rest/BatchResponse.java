package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.port.Workflows.BatchProgress;

import java.util.List;
import java.util.Map;

/**
 * A batch as the API shows it (API.md, "Workflows"): counts of its jobs by their latest run's status; {@code job_ids}
 * and {@code refs} only in the answer of its creation.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"id", "name", "idempotency_key", "status", "created_at", "completed_at", "total", "waiting",
        "pending", "running", "succeeded", "dead", "cancelled", "on_complete_job_id", "tenant", "job_ids", "refs"})
public record BatchResponse(
        @JsonProperty("id") String id,
        @JsonProperty("name") String name,
        @JsonProperty("idempotency_key") String idempotencyKey,
        @JsonProperty("status") String status,
        @JsonProperty("created_at") String createdAt,
        @JsonProperty("completed_at") String completedAt,
        @JsonProperty("total") int total,
        @JsonProperty("waiting") int waiting,
        @JsonProperty("pending") int pending,
        @JsonProperty("running") int running,
        @JsonProperty("succeeded") int succeeded,
        @JsonProperty("dead") int dead,
        @JsonProperty("cancelled") int cancelled,
        @JsonProperty("on_complete_job_id") String onCompleteJobId,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("job_ids") List<String> jobIds,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("refs") Map<String, String> refs,
        @JsonProperty("tenant") String tenant) {

    static BatchResponse of(BatchProgress b, List<String> jobIds, Map<String, String> refs) {
        return new BatchResponse(b.id(), b.name(), b.idempotencyKey(), b.status(), Timestamps.format(b.createdAt()),
                Timestamps.format(b.completedAt()), b.total(), b.waiting(), b.pending(), b.running(), b.succeeded(),
                b.dead(), b.cancelled(), b.onCompleteJobId(), jobIds, refs, b.tenant());
    }
}
