package io.forgeflow.client;

import java.time.Instant;
import java.util.Map;

/**
 * A backfill of a recurring job ({@code POST /api/jobs/{id}/backfill}): the range asked, how many ticks it held, how
 * many runs it created (the others, {@code skipped}, had a run already), and its runs counted by status
 * ({@code pending}, {@code running}, {@code succeeded}, {@code dead}, {@code cancelled}); {@code done} once none is
 * pending, waiting or running.
 */
public record Backfill(String id, String jobId, Instant from, Instant to, String overlap, int ticks, int created,
                       int skipped, Instant createdAt, boolean done, Map<String, Long> runs) {
    public Backfill {
        runs = runs == null ? Map.of() : Map.copyOf(runs);
    }
}
