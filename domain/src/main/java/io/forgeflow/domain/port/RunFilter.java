package io.forgeflow.domain.port;

import io.forgeflow.domain.run.RunStatus;

import java.time.Instant;
import java.util.Map;

/**
 * What {@code GET /api/runs} lists: every given condition must hold (null or empty: no condition). Times are
 * exclusive bounds.
 *
 * @param queue           only runs of this queue (the run's own: a run that kept its queue through a PATCH with
 *                        {@code ?pending=keep} is in that one)
 * @param labels          only runs carrying every one of these labels
 * @param scheduledAfter  only runs with {@code scheduled_for} later than this
 * @param scheduledBefore only runs with {@code scheduled_for} earlier than this
 * @param finishedAfter   only runs that finished later than this (so only finished runs)
 * @param tenant          only runs of this tenant
 */
public record RunFilter(String jobId, RunStatus status, String queue, Map<String, String> labels,
                        Instant scheduledAfter, Instant scheduledBefore, Instant finishedAfter, String tenant) {
    /** Runs of every tenant. */
    public RunFilter(String jobId, RunStatus status, String queue, Map<String, String> labels,
                     Instant scheduledAfter, Instant scheduledBefore, Instant finishedAfter) {
        this(jobId, status, queue, labels, scheduledAfter, scheduledBefore, finishedAfter, null);
    }

    /** The same filter, within {@code newTenant} (null: every tenant). */
    public RunFilter inTenant(String newTenant) {
        return new RunFilter(jobId, status, queue, labels, scheduledAfter, scheduledBefore, finishedAfter, newTenant);
    }

    /** Every run. */
    public static final RunFilter ALL = new RunFilter(null, null, null, Map.of(), null, null, null);

    public RunFilter {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** Only a job and/or a status (either may be null). */
    public static RunFilter of(String jobId, RunStatus status) {
        return new RunFilter(jobId, status, null, Map.of(), null, null, null);
    }
}
