package io.forgeflow.admin.cluster;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server-side filters of the run list ({@code GET /api/runs}): job, status, queue, labels (all must match), and
 * exclusive time bounds on the scheduled and finished times. Null or empty means "not filtered".
 */
public record RunQuery(String jobId, String status, String queue, Map<String, String> labels, Instant scheduledAfter,
                       Instant scheduledBefore, Instant finishedAfter) {
    public static final RunQuery ALL = of(null, null);

    public RunQuery {
        jobId = JobQuery.blankToNull(jobId);
        status = JobQuery.blankToNull(status);
        queue = JobQuery.blankToNull(queue);
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** One job's runs (null: every job) in one status (null: all). */
    public static RunQuery of(String jobId, String status) {
        return new RunQuery(jobId, status, null, Map.of(), null, null, null);
    }

    /** {@code job_id=job_1 status=dead scheduled_after=...}, the set filters as query parameters. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        JobQuery.append(s, "job_id", jobId);
        JobQuery.append(s, "status", status);
        JobQuery.append(s, "queue", queue);
        labels.forEach((k, v) -> JobQuery.append(s, "label", k + ":" + v));
        JobQuery.append(s, "scheduled_after", scheduledAfter);
        JobQuery.append(s, "scheduled_before", scheduledBefore);
        JobQuery.append(s, "finished_after", finishedAfter);
        return s.toString();
    }
}
