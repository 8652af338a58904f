package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;

import java.util.List;
import java.util.TreeSet;

/**
 * A node: its id, roles (sorted), version, start, last heartbeat, runs it holds, whether it leads, and its status:
 * {@code live}, or {@code gone} when it missed three heartbeats (listed so for ten heartbeats, then dropped); how it
 * contains its shell jobs' processes ({@code pid-namespace}, {@code process-group}, {@code none}; null when it does not
 * say) and the OS user they run as (null: the node's own); the address it serves gRPC on (null: none); how its pool
 * reaches PostgreSQL ({@code direct}, or {@code transaction} behind PgBouncer; null: it does not say); how it is woken
 * ({@code notify} or {@code polling}) and elected ({@code advisory_lock} or {@code lease}, with the lease's term while
 * it leads); its connections at its last heartbeat.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"worker_id", "roles", "version", "started_at", "last_seen_at", "running", "leader", "status",
        "containment", "job_user", "grpc", "database_pooling", "wake_ups", "leadership", "leader_term", "connections"})
public record NodeResponse(
        @JsonProperty("worker_id") String workerId,
        @JsonProperty("roles") List<String> roles,
        @JsonProperty("version") String version,
        @JsonProperty("started_at") String startedAt,
        @JsonProperty("last_seen_at") String lastSeenAt,
        @JsonProperty("running") long running,
        @JsonProperty("leader") boolean leader,
        @JsonProperty("status") String status,
        @JsonProperty("containment") String containment,
        @JsonProperty("job_user") String jobUser,
        @JsonProperty("grpc") String grpc,
        @JsonProperty("database_pooling") String databasePooling,
        @JsonProperty("wake_ups") String wakeUps,
        @JsonProperty("leadership") String leadership,
        @JsonProperty("leader_term") Long leaderTerm,
        @JsonProperty("connections") ConnectionsResponse connections) {

    /** A node's database connections: its pool's size and borrowed connections, and its session connections. */
    @JsonPropertyOrder({"pool_max", "pool_in_use", "sessions"})
    public record ConnectionsResponse(@JsonProperty("pool_max") int poolMax,
                                      @JsonProperty("pool_in_use") int poolInUse,
                                      @JsonProperty("sessions") int sessions) {
    }

    static NodeResponse of(NodeStatus node) {
        // a gone node does not lead (its lock died with its connection), whatever its last heartbeat said
        return new NodeResponse(node.info().workerId(), List.copyOf(new TreeSet<>(node.info().roles())),
                node.info().version(), Timestamps.format(node.info().startedAt()), Timestamps.format(node.lastSeenAt()),
                node.running(), node.live() && node.info().leader(), node.live() ? "live" : "gone",
                node.info().containment(), node.info().jobUser(), node.info().grpcAddress(),
                node.info().pooling(), node.info().wakeUps(), node.info().leadership(),
                node.live() && node.info().leader() ? node.info().leaderTerm() : null,
                node.info().connections() == null ? null : new ConnectionsResponse(node.info().connections().poolMax(),
                        node.info().connections().poolInUse(), node.info().connections().sessions()));
    }
}
