package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonAlias;

import java.time.Instant;
import java.util.List;

/**
 * A live node ({@code GET /api/nodes}): its worker id, roles ({@code api}, {@code scheduler}, {@code worker}), its
 * last heartbeat, how many runs it is executing, and whether it currently leads the scheduler.
 */
public record Node(
        String workerId,
        List<String> roles,
        String version,
        Instant startedAt,
        Instant lastSeenAt,
        @JsonAlias({"running_count", "running_runs"}) long running,
        @JsonAlias({"is_leader", "scheduler_leader", "leads_scheduler"}) boolean leader) {

    public Node {
        roles = roles == null ? List.of() : List.copyOf(roles);
    }
}
