package io.forgeflow.admin.overview;

import java.time.Instant;

/** One line of the live feed: a run reached a status (previousStatus null when unknown). */
public record FeedEntry(Instant at, String runId, String jobId, String status, String previousStatus) {
}
