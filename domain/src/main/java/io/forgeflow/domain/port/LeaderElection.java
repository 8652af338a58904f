package io.forgeflow.domain.port;

/**
 * At most one scheduler node leads at a time. Every scheduler node campaigns; only the leader turns schedules into
 * runs and recovers expired leases.
 */
public interface LeaderElection {

    /**
     * Campaigns if not leading, or confirms leadership if leading (checking that the lock is still held). Returns
     * whether this node leads now. When in doubt (the connection failed), returns false and stops leading.
     */
    boolean campaign();

    /** Whether this node led at its last campaign. Cheap; no database round trip. */
    boolean isLeader();

    /** Gives up leadership (if held) so that a standby can take over at once. */
    void resign();
}
