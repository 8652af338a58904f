package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.tenant.TenantInfo;

/** A tenant as the API shows it (API.md, "Tenants"). Every field is present; absent limits are null. */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"name", "weight", "max_running", "rate_limit", "pending", "running", "starts_in_window"})
public record TenantResponse(
        @JsonProperty("name") String name,
        @JsonProperty("weight") int weight,
        @JsonProperty("max_running") Integer maxRunning,
        @JsonProperty("rate_limit") QueueResponse.Rate rateLimit,
        @JsonProperty("pending") long pending,
        @JsonProperty("running") long running,
        @JsonProperty("starts_in_window") long startsInWindow) {

    static TenantResponse of(TenantInfo t) {
        return new TenantResponse(t.name(), t.settings().weight(), t.settings().maxRunning(),
                QueueResponse.Rate.of(t.settings().rateLimit()), t.pending(), t.running(), t.startsInWindow());
    }
}
