package io.forgeflow.domain.job;

import java.util.Locale;

/**
 * What the scheduler does with a recurring job's tick while an earlier run of the job is still pending or running.
 * Manual triggers are not affected: an operator who triggers a run gets it.
 */
public enum Overlap {
    /** Fire every tick; runs of the job may run side by side. */
    ALLOW,
    /** Drop the tick (counted as a missed tick) while a run of the job is pending or running. */
    SKIP,
    /** Keep at most one run waiting behind the running one: fire when none is pending, else drop the tick. */
    QUEUE_ONE,
    /** Ask the running run to stop, cancel a pending one, and fire the new tick. */
    CANCEL_RUNNING;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Overlap fromWire(String value) {
        for (Overlap o : values()) {
            if (o.wireName().equals(value)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown overlap '" + value + "': use allow, skip, queue_one or cancel_running");
    }
}
