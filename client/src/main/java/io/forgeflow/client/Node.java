package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonAlias;

import java.time.Instant;
import java.util.List;

/**
 * A live node ({@code GET /api/nodes}): its worker id, roles ({@code api}, {@code scheduler}, {@code worker}), its
 * last heartbeat, how many runs it is executing, whether it currently leads the scheduler, how it contains its shell
 * jobs' processes ({@code pid-namespace}, {@code process-group}, {@code none}; null when it does not say) and the OS
 * user they run as (null: the node's own); how it is woken ({@code notify} or {@code polling}) and elected
 * ({@code advisory_lock} or {@code lease}), the lease's term while it leads by lease, and its database connections at
 * its last heartbeat (null where an older node does not say).
 */
public record Node(
        String workerId,
        List<String> roles,
        String version,
        Instant startedAt,
        Instant lastSeenAt,
        @JsonAlias({"running_count", "running_runs"}) long running,
        @JsonAlias({"is_leader", "scheduler_leader", "leads_scheduler"}) boolean leader,
        String containment,
        String jobUser,
        String wakeUps,
        String leadership,
        Long leaderTerm,
        Connections connections) {

    public Node {
        roles = roles == null ? List.of() : List.copyOf(roles);
    }

    /** A node that says nothing of its jobs' containment (an older node). */
    public Node(String workerId, List<String> roles, String version, Instant startedAt, Instant lastSeenAt, long running,
                boolean leader) {
        this(workerId, roles, version, startedAt, lastSeenAt, running, leader, null, null);
    }

    /** A node that says nothing of its wake-ups, leadership and connections (an older node). */
    public Node(String workerId, List<String> roles, String version, Instant startedAt, Instant lastSeenAt, long running,
                boolean leader, String containment, String jobUser) {
        this(workerId, roles, version, startedAt, lastSeenAt, running, leader, containment, jobUser, null, null, null,
                null);
    }

    /**
     * A node's database connections at its last heartbeat.
     *
     * @param poolMax   its pool's size
     * @param poolInUse the pool's connections borrowed then
     * @param sessions  its session connections open (LISTEN, the leader's lock), outside the pool
     */
    public record Connections(int poolMax, int poolInUse, int sessions) {
    }
}
