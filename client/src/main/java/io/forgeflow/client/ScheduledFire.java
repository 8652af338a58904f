package io.forgeflow.client;

import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * One fire time of a schedule preview ({@code GET /api/schedules/preview}): the instant, its wall-clock time in the
 * zone, and a note, or null, when daylight saving moved it (a gap) or merged it (an overlap).
 */
public record ScheduledFire(Instant at, OffsetDateTime local, String note) {
}
