package io.forgeflow.client;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of {@code PATCH /api/jobs/{id}}: only the fields set here are sent, so the others keep their value on the
 * server; a field set to null takes its default (or none). The job keeps its id, executor and idempotency key.
 * {@code JobUpdate.create().cron("0 4 * * *").priority(2)}.
 */
public final class JobUpdate {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private JobUpdate() {
    }

    /** An update that changes nothing yet. */
    public static JobUpdate create() {
        return new JobUpdate();
    }

    public JobUpdate name(String name) {
        return set("name", name);
    }

    /** The executor's settings, whole (they replace the job's payload). */
    public JobUpdate payload(Map<String, ?> payload) {
        return set("payload", payload == null ? null : new LinkedHashMap<>(payload));
    }

    /** A recurring job's new cron expression (a one-off job cannot become recurring). */
    public JobUpdate cron(String cronExpr) {
        return set("cron_expr", cronExpr);
    }

    /** A one-off job's new time; null: run now. Its pending run moves with it. */
    public JobUpdate runAt(Instant runAt) {
        return set("run_at", runAt == null ? null : runAt.toString());
    }

    public JobUpdate timezone(String timezone) {
        return set("timezone", timezone);
    }

    public JobUpdate priority(Integer priority) {
        return set("priority", priority);
    }

    public JobUpdate maxAttempts(Integer maxAttempts) {
        return set("max_attempts", maxAttempts);
    }

    public JobUpdate timeoutSeconds(Integer timeoutSeconds) {
        return set("timeout_seconds", timeoutSeconds);
    }

    public JobUpdate catchUp(String catchUp) {
        return set("catch_up", catchUp);
    }

    public JobUpdate queue(String queue) {
        return set("queue", queue);
    }

    public JobUpdate concurrencyKey(String concurrencyKey) {
        return set("concurrency_key", concurrencyKey);
    }

    public JobUpdate maxConcurrent(Integer maxConcurrent) {
        return set("max_concurrent", maxConcurrent);
    }

    public JobUpdate overlap(String overlap) {
        return set("overlap", overlap);
    }

    /** A recurring job's first allowed tick; null removes it. */
    public JobUpdate startAt(Instant startAt) {
        return set("start_at", startAt == null ? null : startAt.toString());
    }

    /** A recurring job's last allowed tick (it completes after it); null removes it. */
    public JobUpdate endAt(Instant endAt) {
        return set("end_at", endAt == null ? null : endAt.toString());
    }

    /** How many runs a recurring job fires before it completes (1-1,000,000); null: no limit. */
    public JobUpdate maxRuns(Integer maxRuns) {
        return set("max_runs", maxRuns);
    }

    /** The spread of each tick's run, 0-86,400 seconds; null: none. */
    public JobUpdate jitterSeconds(Integer jitterSeconds) {
        return set("jitter_seconds", jitterSeconds);
    }

    /** Pause the job after this many dead runs in a row (1-1,000); null: never. */
    public JobUpdate pauseAfterFailures(Integer pauseAfterFailures) {
        return set("pause_after_failures", pauseAfterFailures);
    }

    /** The job's notices, replaced as a whole ({@code notify}); null: no more notices. */
    public JobUpdate notices(Notify notices) {
        if (notices == null) {
            return set("notify", null);
        }
        Map<String, Object> notify = new LinkedHashMap<>();
        notify.put("url", notices.url());
        if (notices.on() != null && !notices.on().isEmpty()) {
            notify.put("on", notices.on());
        }
        return set("notify", notify);
    }

    /**
     * The job's throttle, replaced as a whole: at most {@code count} runs sharing {@code key} start per
     * {@code perSeconds}; its pending runs follow unless the update keeps them. A job's debounce cannot change.
     */
    public JobUpdate throttle(String key, Integer count, Integer perSeconds) {
        Map<String, Object> throttle = new LinkedHashMap<>();
        throttle.put("key", key);
        throttle.put("count", count);
        throttle.put("per_seconds", perSeconds);
        return set("throttle", throttle);
    }

    /** Removes the job's throttle. */
    public JobUpdate noThrottle() {
        return set("throttle", null);
    }

    /**
     * The job's own retry backoff, replaced as a whole (a null part is the server's default; both null: no policy of
     * its own). Its pending runs follow unless the update keeps them.
     */
    public JobUpdate retry(Integer baseSeconds, Integer maxSeconds) {
        if (baseSeconds == null && maxSeconds == null) {
            return set("retry", null);
        }
        Map<String, Object> retry = new LinkedHashMap<>();
        if (baseSeconds != null) {
            retry.put("base_seconds", baseSeconds);
        }
        if (maxSeconds != null) {
            retry.put("max_seconds", maxSeconds);
        }
        return set("retry", retry);
    }

    /** Replaces the job's labels (null or empty: none); pending runs take them unless kept. */
    public JobUpdate labels(Map<String, String> labels) {
        return set("labels", labels == null ? null : new java.util.TreeMap<>(labels));
    }

    /** Whether nothing is set (such an update changes nothing). */
    public boolean isEmpty() {
        return fields.isEmpty();
    }

    /** The fields to send, in the order they were set. */
    public Map<String, Object> body() {
        return Collections.unmodifiableMap(fields);
    }

    private JobUpdate set(String field, Object value) {
        fields.put(field, value);
        return this;
    }
}
