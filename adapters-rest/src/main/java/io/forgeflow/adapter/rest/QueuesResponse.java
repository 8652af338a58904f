package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * {@code GET /api/queues}: every known queue, by name, under {@code items} as every list of the API; {@code queues}
 * repeats them for clients of the release before, deprecated and removed in the next one (API.md).
 */
@JsonPropertyOrder({"items", "queues"})
public record QueuesResponse(@JsonProperty("items") List<QueueResponse> items) {

    /** The deprecated alias of {@link #items()}. */
    @Deprecated
    @JsonProperty("queues")
    public List<QueueResponse> queues() {
        return items;
    }
}
