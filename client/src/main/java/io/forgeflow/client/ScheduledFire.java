package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * One fire time of a schedule preview ({@code GET /api/schedules/preview}): the instant its run is due, its wall-clock
 * time in the zone, and a note, or null, when daylight saving moved it (a gap) or merged it (an overlap), or when it
 * is the schedule's last fire ({@code max_runs}, {@code end_at}). With a job's jitter ({@code job_id}), {@code tick}
 * is the cron tick it stands for and {@code jitterSeconds} how far the jitter moved it; otherwise {@code tick} is
 * {@code at} and {@code jitterSeconds} 0.
 */
public record ScheduledFire(Instant at, OffsetDateTime local, String note, Instant tick, int jitterSeconds) {
    @JsonCreator
    public ScheduledFire {
        tick = tick == null ? at : tick;
    }

    /** A fire without jitter. */
    public ScheduledFire(Instant at, OffsetDateTime local, String note) {
        this(at, local, note, at, 0);
    }
}
