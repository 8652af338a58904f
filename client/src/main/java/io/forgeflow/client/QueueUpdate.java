package io.forgeflow.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of {@code PUT /api/queues/{name}}: only the limits set here are sent, so the others keep their value on
 * the server. {@code QueueUpdate.create().maxRunning(2)} changes only max_running; {@link #clearMaxRunning()} and
 * {@link #clearRateLimit()} send null, which removes that limit.
 */
public final class QueueUpdate {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private QueueUpdate() {
    }

    /** An update that changes nothing yet. */
    public static QueueUpdate create() {
        return new QueueUpdate();
    }

    /** At most {@code maxRunning} runs of the queue at once, on all nodes together (1-100000); null clears it. */
    public QueueUpdate maxRunning(Integer maxRunning) {
        fields.put("max_running", maxRunning);
        return this;
    }

    public QueueUpdate clearMaxRunning() {
        return maxRunning(null);
    }

    /** At most {@code count} starts (1-1000000) in any {@code perSeconds} (1-86400) seconds. */
    public QueueUpdate rateLimit(int count, int perSeconds) {
        Map<String, Object> rate = new LinkedHashMap<>();
        rate.put("count", count);
        rate.put("per_seconds", perSeconds);
        fields.put("rate_limit", rate);
        return this;
    }

    public QueueUpdate clearRateLimit() {
        fields.put("rate_limit", null);
        return this;
    }

    /** The JSON object to send, in snake_case: the fields set, null for a cleared limit. */
    public Map<String, Object> body() {
        return Collections.unmodifiableMap(fields);
    }

    @Override
    public String toString() {
        return "QueueUpdate" + fields;
    }
}
