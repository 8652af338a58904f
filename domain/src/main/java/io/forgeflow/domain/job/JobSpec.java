package io.forgeflow.domain.job;

import io.forgeflow.domain.backoff.RetryOverride;

import java.time.Instant;
import java.time.ZoneId;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Objects;

/**
 * A validated job definition (see {@link JobDraft#validate()}): what to run, when, and how hard to try.
 * Two submissions with one idempotency key are the same request exactly when their specs are equal.
 *
 * @param uniqueKey while a run of a job with this key (in the same queue) is pending or running, no other job with it
 *                  is accepted; null for none. One-off jobs only.
 * @param retry     the job's own retry backoff, copied to its runs; null: the deciding node's defaults
 * @param labels    checked by {@link Labels}, in key order; empty when none. Copied to the job's runs.
 * @param schedule  window, run limit, jitter and pause on failure of a recurring job ({@link ScheduleControls#NONE}
 *                  for a one-off job or a plain schedule)
 * @param sequenceKey     the sequence its run joins (runs with one key start one at a time, in submission order);
 *                        null for none. One-off jobs only. Copied to its runs
 * @param sequenceOnDead  with a sequence key: {@code "block"} or {@code "continue"} (what a dead run of it does to the
 *                        sequence); null without a key
 * @param notices         where the job's notices go and for which events ({@code notify} in the API; {@link Notify},
 *                        checked); null for none
 * @param debounce        the debounce its submissions share ({@link Debounce}, checked); null for none. One-off jobs
 * @param throttle        the start limit its runs share ({@link Throttle}, checked); null for none. Copied to its runs
 */
public record JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      Overlap overlap, String uniqueKey, RetryOverride retry,
                      Map<String, String> labels, ScheduleControls schedule, String sequenceKey,
                      String sequenceOnDead, Notify notices, Debounce debounce, Throttle throttle) {
    public JobSpec {
        schedule = schedule == null ? ScheduleControls.NONE : schedule;
        labels = labels == null || labels.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(timezone, "timezone");
        Objects.requireNonNull(catchUp, "catchUp");
        payload = payload == null ? Map.of() : payload;
        queue = queue == null ? QueueNames.DEFAULT : queue;
        overlap = overlap == null ? Overlap.ALLOW : overlap;
        if (concurrencyKey != null && maxConcurrent == null) {
            throw new IllegalArgumentException("a concurrency key needs max_concurrent");
        }
        if (uniqueKey != null && cronExpr != null) {
            throw new IllegalArgumentException("a unique key belongs to a one-off job");
        }
        if ((sequenceKey == null) != (sequenceOnDead == null)) {
            throw new IllegalArgumentException("a sequence key goes with its on_dead, and on_dead with a key");
        }
        if (sequenceKey != null && cronExpr != null) {
            throw new IllegalArgumentException("a sequence key belongs to a one-off job");
        }
        if (debounce != null && cronExpr != null) {
            throw new IllegalArgumentException("a debounce belongs to a one-off job");
        }
    }

    /** A spec without flow control (debounce, throttle). */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey, RetryOverride retry, Map<String, String> labels,
                   ScheduleControls schedule, String sequenceKey, String sequenceOnDead, Notify notices) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, labels, schedule,
                sequenceKey, sequenceOnDead, notices, null, null);
    }

    /** A spec outside any sequence. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey, RetryOverride retry, Map<String, String> labels,
                   ScheduleControls schedule) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, labels, schedule,
                null, null, null, null, null);
    }

    /** A one-off spec in a sequence (no schedule controls). */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey, RetryOverride retry, Map<String, String> labels,
                   String sequenceKey, String sequenceOnDead) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, labels,
                ScheduleControls.NONE, sequenceKey, sequenceOnDead, null, null, null);
    }

    /** A spec without schedule controls (a plain cron schedule, or a one-off job) outside any sequence. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey, RetryOverride retry, Map<String, String> labels) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, labels,
                ScheduleControls.NONE);
    }

    /** The same spec with other schedule controls. */
    public JobSpec withSchedule(ScheduleControls controls) {
        return new JobSpec(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, labels,
                controls, sequenceKey, sequenceOnDead, notices, debounce, throttle);
    }

    /** The same spec with other notices ({@code notify}, null for none). */
    public JobSpec withNotify(Notify newNotify) {
        return new JobSpec(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, labels,
                schedule, sequenceKey, sequenceOnDead, newNotify, debounce, throttle);
    }

    /** A spec without labels. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey, RetryOverride retry) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, retry, Map.of());
    }

    /** A spec with labels, without a retry policy of its own. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey, Map<String, String> labels) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, null, labels);
    }

    /** A spec without a retry policy of its own (the node's defaults apply) or labels. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap, String uniqueKey) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, null, Map.of());
    }

    /** A spec without a unique key. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                   Overlap overlap) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, null);
    }

    /** A spec in the default queue, without concurrency limits, whose ticks may overlap. */
    public JobSpec(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                   String timezone, int priority, int maxAttempts, int timeoutSeconds, CatchUp catchUp,
                   String idempotencyKey) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, QueueNames.DEFAULT, null, null, Overlap.ALLOW);
    }

    /**
     * The key whose runs count together against {@link #maxConcurrent}: the given key, or one of this job's own
     * ({@code job:<id>}) when only max_concurrent was given; null when the job has no concurrency limit.
     */
    public String effectiveConcurrencyKey(String jobId) {
        if (maxConcurrent == null) {
            return null;
        }
        return concurrencyKey != null ? concurrencyKey : "job:" + jobId;
    }

    /**
     * Whether {@code other} is the same request: equal fields, with payloads compared as JSON values (numbers by
     * value, so 100, 100.0 and 1e2 match; object keys in any order). An idempotent replay must match this way,
     * since the payload came back through a database that normalises numbers.
     */
    public boolean sameRequestAs(JobSpec other) {
        return other != null && name.equals(other.name) && executor.equals(other.executor)
                && Objects.equals(cronExpr, other.cronExpr) && Objects.equals(runAt, other.runAt)
                && timezone.equals(other.timezone) && priority == other.priority && maxAttempts == other.maxAttempts
                && timeoutSeconds == other.timeoutSeconds && catchUp == other.catchUp
                && Objects.equals(idempotencyKey, other.idempotencyKey) && queue.equals(other.queue)
                && Objects.equals(concurrencyKey, other.concurrencyKey)
                && Objects.equals(maxConcurrent, other.maxConcurrent) && overlap == other.overlap
                && Objects.equals(uniqueKey, other.uniqueKey) && Objects.equals(retry, other.retry)
                && labels.equals(other.labels) && schedule.equals(other.schedule)
                && Objects.equals(sequenceKey, other.sequenceKey)
                && Objects.equals(sequenceOnDead, other.sequenceOnDead) && Objects.equals(notices, other.notices)
                && Objects.equals(debounce, other.debounce) && Objects.equals(throttle, other.throttle)
                && canonical(payload).equals(canonical(other.payload));
    }

    private static Object canonical(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> sorted = new TreeMap<>();
            m.forEach((k, v) -> sorted.put(String.valueOf(k), canonical(v)));
            return sorted;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(v -> out.add(canonical(v)));
            return out;
        }
        if (value instanceof BigDecimal d) {
            return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        }
        if (value instanceof BigInteger i) {
            return canonical(new BigDecimal(i));
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d) ? canonical(BigDecimal.valueOf(d)) : value;
        }
        if (value instanceof Number n) {
            return canonical(BigDecimal.valueOf(n.longValue()));
        }
        return value;
    }

    /** A recurring job has a cron expression; a one-off job has none. */
    public boolean isRecurring() {
        return cronExpr != null;
    }

    public ZoneId zone() {
        return ZoneId.of(timezone);
    }
}
