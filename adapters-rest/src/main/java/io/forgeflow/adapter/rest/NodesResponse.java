package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/** {@code {"items": [...]}}: every live or recently gone node at once (a cluster has few), so there is no cursor. */
public record NodesResponse(@JsonProperty("items") List<NodeResponse> items) {
}
