package io.forgeflow.admin.cluster;

import java.util.Map;
import java.util.TreeMap;

/**
 * The server-side filters of the job list ({@code GET /api/jobs}): status, queue, labels (all must match) and a name
 * prefix. Null or empty means "not filtered". {@link #ALL} filters nothing.
 */
public record JobQuery(String status, String queue, Map<String, String> labels, String namePrefix) {
    public static final JobQuery ALL = new JobQuery(null, null, Map.of(), null);

    public JobQuery {
        status = blankToNull(status);
        queue = blankToNull(queue);
        namePrefix = blankToNull(namePrefix);
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** Only a status (null: all). */
    public static JobQuery status(String status) {
        return new JobQuery(status, null, Map.of(), null);
    }

    /** Whether any filter beyond the status is set. */
    public boolean narrowsBeyondStatus() {
        return queue != null || namePrefix != null || !labels.isEmpty();
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** {@code status=paused queue=fast label=team:ops name_prefix=nightly}, the set filters as query parameters. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        append(s, "status", status);
        append(s, "queue", queue);
        labels.forEach((k, v) -> append(s, "label", k + ":" + v));
        append(s, "name_prefix", namePrefix);
        return s.toString();
    }

    static void append(StringBuilder s, String name, Object value) {
        if (value != null) {
            s.append(s.length() == 0 ? "" : " ").append(name).append('=').append(value);
        }
    }
}
