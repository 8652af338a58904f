package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;

import java.util.List;
import java.util.TreeSet;

/** A live node: its id, roles (sorted), version, start, last heartbeat, runs it holds, and whether it leads. */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"worker_id", "roles", "version", "started_at", "last_seen_at", "running", "leader"})
public record NodeResponse(
        @JsonProperty("worker_id") String workerId,
        @JsonProperty("roles") List<String> roles,
        @JsonProperty("version") String version,
        @JsonProperty("started_at") String startedAt,
        @JsonProperty("last_seen_at") String lastSeenAt,
        @JsonProperty("running") long running,
        @JsonProperty("leader") boolean leader) {

    static NodeResponse of(NodeStatus node) {
        return new NodeResponse(node.info().workerId(), List.copyOf(new TreeSet<>(node.info().roles())),
                node.info().version(), Timestamps.format(node.info().startedAt()), Timestamps.format(node.lastSeenAt()),
                node.running(), node.info().leader());
    }
}
