package io.forgeflow.domain.run;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The lifecycle of one run. Transitions are the table {@link #NEXT}; nothing else may move a run.
 * Each constant names the component that moves a run out of it; docs/architecture.md names the SQL of every
 * transition (every way out of RUNNING is the database function {@code forgeflow_end_attempts}).
 */
public enum RunStatus {
    /** Waiting for the parent jobs it depends on (docs/API.md, "Workflows"); no claim reads it. Left by the database when its parents decide (PENDING, CANCELLED) or by a cancel, pause or delete of its job (CANCELLED). */
    WAITING,
    /** Waiting until scheduledFor (first try, or a retry after backoff). Left by the Worker's claim (RUNNING) or CancelRun / job pause / job cancel (CANCELLED). */
    PENDING,
    /** Leased to one worker until leaseExpiresAt. Left by the worker's acknowledgement (SUCCEEDED, PENDING for a retry, DEAD, CANCELLED), by LeaseRescuer once the lease expires (PENDING, DEAD, or CANCELLED when asked), or by a worker releasing it (PENDING); OutcomePolicy decides which. */
    RUNNING,
    /** Terminal: the executor reported success. */
    SUCCEEDED,
    /** Terminal dead letter: attempts exhausted. Left only by RequeueRun (PENDING). */
    DEAD,
    /**
     * Terminal: cancelled by an operator, by its job's pause/cancel, or by a parent's failure. Left only by a requeue:
     * its own (RequeueRun: PENDING), or its dead parent's, which reopens the children that parent's death cancelled
     * (WAITING until the parent decides again).
     */
    CANCELLED;

    private static final Map<RunStatus, Set<RunStatus>> NEXT = new EnumMap<>(Map.of(
            WAITING, EnumSet.of(PENDING, CANCELLED),
            PENDING, EnumSet.of(RUNNING, CANCELLED),
            RUNNING, EnumSet.of(SUCCEEDED, PENDING, DEAD, CANCELLED),
            SUCCEEDED, EnumSet.noneOf(RunStatus.class),
            DEAD, EnumSet.of(PENDING),
            CANCELLED, EnumSet.of(PENDING, WAITING)));

    /** Whether the lifecycle allows a run in this status to move to {@code next}. */
    public boolean canMoveTo(RunStatus next) {
        return NEXT.get(this).contains(next);
    }

    /** True for SUCCEEDED, DEAD and CANCELLED: no worker will touch the run again unless it is requeued. */
    public boolean isTerminal() {
        return this == SUCCEEDED || this == DEAD || this == CANCELLED;
    }

    /** The lower-case name used in the API and in the database. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a wire name; throws {@link IllegalArgumentException} naming the accepted values. */
    public static RunStatus fromWire(String value) {
        for (RunStatus s : values()) {
            if (s.wireName().equals(value)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown run status '" + value
                + "': use one of waiting, pending, running, succeeded, dead, cancelled");
    }
}
