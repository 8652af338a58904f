package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.backoff.RetryOverride;

/**
 * A job's or run's own retry policy as the API shows it: {@code {"base_seconds": n, "max_seconds": n}}, a part null
 * when the job left it to the nodes' defaults (base {@code FORGEFLOW_RETRY_BASE}, cap 15 minutes). The field
 * {@code retry} itself is null when the job gave no policy.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"base_seconds", "max_seconds"})
public record RetryResponse(@JsonProperty("base_seconds") Integer baseSeconds,
                            @JsonProperty("max_seconds") Integer maxSeconds) {

    /** Null for null (no policy of its own). */
    static RetryResponse of(RetryOverride retry) {
        return retry == null ? null : new RetryResponse(retry.baseSeconds(), retry.maxSeconds());
    }
}
