package io.forgeflow.domain.job;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The lifecycle of a job definition. */
public enum JobStatus {
    /** Fires its schedule. Left by PauseJob (PAUSED), CancelJob (CANCELLED), or the end of a one-off's run (COMPLETED). */
    ACTIVE,
    /**
     * Fires nothing; its pending runs were cancelled. Left by ResumeJob (ACTIVE), CancelJob (CANCELLED), or the end
     * of a one-off's run that was already running when the job was paused (COMPLETED).
     */
    PAUSED,
    /** Cancelled for good by an operator. Left only by DeleteJob (DELETED). */
    CANCELLED,
    /** A one-off job whose run ended. Left only by DeleteJob (DELETED). */
    COMPLETED,
    /**
     * A tombstone, left by DeleteJob: out of every list, no runs to come; its finished runs still name it until
     * retention (or a purge) removes them with it.
     */
    DELETED;

    private static final Map<JobStatus, Set<JobStatus>> NEXT = new EnumMap<>(Map.of(
            ACTIVE, EnumSet.of(PAUSED, CANCELLED, COMPLETED, DELETED),
            PAUSED, EnumSet.of(ACTIVE, CANCELLED, COMPLETED, DELETED),
            CANCELLED, EnumSet.of(DELETED),
            COMPLETED, EnumSet.of(DELETED),
            DELETED, EnumSet.noneOf(JobStatus.class)));

    public boolean canMoveTo(JobStatus next) {
        return NEXT.get(this).contains(next);
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static JobStatus fromWire(String value) {
        for (JobStatus s : values()) {
            if (s.wireName().equals(value)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown job status '" + value
                + "': use one of active, paused, cancelled, completed, deleted");
    }
}
