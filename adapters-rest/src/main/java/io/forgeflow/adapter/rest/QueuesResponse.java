package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/** {@code GET /api/queues}: every known queue, by name. */
public record QueuesResponse(@JsonProperty("queues") List<QueueResponse> queues) {
}
