package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.run.RunStatus;

import java.util.Map;

/**
 * How many runs are in each status: {@code {"waiting": n, "pending": n, "running": n, "succeeded": n, "dead": n,
 * "cancelled": n}} ({@code waiting}: an addition, runs waiting for parent jobs).
 */
@JsonPropertyOrder({"waiting", "pending", "running", "succeeded", "dead", "cancelled"})
public record StatsResponse(
        @JsonProperty("waiting") long waiting,
        @JsonProperty("pending") long pending,
        @JsonProperty("running") long running,
        @JsonProperty("succeeded") long succeeded,
        @JsonProperty("dead") long dead,
        @JsonProperty("cancelled") long cancelled) {

    static StatsResponse of(Map<RunStatus, Long> counts) {
        return new StatsResponse(count(counts, RunStatus.WAITING), count(counts, RunStatus.PENDING), count(counts, RunStatus.RUNNING),
                count(counts, RunStatus.SUCCEEDED), count(counts, RunStatus.DEAD), count(counts, RunStatus.CANCELLED));
    }

    private static long count(Map<RunStatus, Long> counts, RunStatus status) {
        Long n = counts.get(status);
        return n == null ? 0 : n;
    }
}
