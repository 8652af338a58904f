package io.forgeflow.domain.job;

import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.error.ValidationException;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * A job definition as submitted: every field may be missing. {@link #validate()} applies the defaults of
 * API.md and the rules that need no knowledge of executors or cron syntax (those are checked by the use case),
 * and throws a {@link ValidationException} naming the first field at fault and how to fix it.
 */
public record JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                       String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds,
                       String catchUp, String idempotencyKey, String queue, String concurrencyKey,
                       Integer maxConcurrent, String overlap, String uniqueKey, String uniqueOnConflict,
                       Integer retryBaseSeconds, Integer retryMaxSeconds, Map<String, ?> labels,
                       ScheduleControls schedule, String sequenceKey, String onDead, Notify notices,
                       Debounce debounce, Throttle throttle) {

    /** {@code on_dead}: a dead run holds its sequence until it is requeued (the default). */
    public static final String ON_DEAD_BLOCK = "block";
    /** {@code on_dead}: a dead run lets its sequence go on. */
    public static final String ON_DEAD_CONTINUE = "continue";

    /** A draft without flow control (debounce, throttle). */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict, Integer retryBaseSeconds,
                    Integer retryMaxSeconds, Map<String, ?> labels, ScheduleControls schedule, String sequenceKey,
                    String onDead, Notify notices) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, schedule, sequenceKey, onDead, notices, null, null);
    }

    /** A draft with schedule controls, outside any sequence. */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict, Integer retryBaseSeconds,
                    Integer retryMaxSeconds, Map<String, ?> labels, ScheduleControls schedule) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, schedule, null, null, null, null, null);
    }

    /** A draft in a sequence, without schedule controls. */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict, Integer retryBaseSeconds,
                    Integer retryMaxSeconds, Map<String, ?> labels, String sequenceKey, String onDead) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, null, sequenceKey, onDead, null, null, null);
    }

    /** A draft without schedule controls, outside any sequence. */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict, Integer retryBaseSeconds,
                    Integer retryMaxSeconds, Map<String, ?> labels) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, null, null, null, null, null, null);
    }

    /** The same draft with these schedule controls (parts may be null: not given). */
    public JobDraft withSchedule(ScheduleControls controls) {
        return new JobDraft(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, controls, sequenceKey, onDead, notices, debounce, throttle);
    }

    /** The same draft with this flow control (null: none given). */
    public JobDraft withFlow(Debounce newDebounce, Throttle newThrottle) {
        return new JobDraft(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, schedule, sequenceKey, onDead, notices, newDebounce,
                newThrottle);
    }

    /** The same draft with these notices (null: none given). */
    public JobDraft withNotify(Notify newNotify) {
        return new JobDraft(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, labels, schedule, sequenceKey, onDead, newNotify, debounce, throttle);
    }

    /** A draft without labels. */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict, Integer retryBaseSeconds,
                    Integer retryMaxSeconds) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retryBaseSeconds, retryMaxSeconds, null);
    }

    /** A draft with labels, without a retry policy of its own. */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict, Map<String, ?> labels) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, null,
                null, labels);
    }

    /** {@code unique_on_conflict}: answer 409 (the default) while a job with the unique key is live. */
    public static final String UNIQUE_REJECT = "reject";
    /** {@code unique_on_conflict}: answer with the live job instead. */
    public static final String UNIQUE_RETURN_EXISTING = "return_existing";
    public static final int MAX_UNIQUE_KEY_LENGTH = 200;

    /** A draft without a retry policy of its own (the node's defaults apply). */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap, String uniqueKey, String uniqueOnConflict) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, null, null,
                null);
    }

    /** A draft without a unique key. */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                    String overlap) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, null, null);
    }

    /** A draft without queue, concurrency limit or overlap policy (all defaults). */
    public JobDraft(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                    String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                    String idempotencyKey) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, null, null, null, null);
    }

    /** A one-off draft of an executor and payload, due now, everything else the defaults. */
    public static JobDraft oneOff(String name, String executor, Map<String, Object> payload) {
        return new JobDraft(name, executor, payload, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null);
    }

    /** The same draft with another payload (every other field kept). */
    public JobDraft withPayload(Map<String, Object> newPayload) {
        return new JobDraft(name, executor, newPayload, cronExpr, runAt, timezone, priority, maxAttempts,
                timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey,
                uniqueOnConflict, retryBaseSeconds, retryMaxSeconds, labels, schedule, sequenceKey, onDead, notices, debounce,
                throttle);
    }

    public static final int MAX_NAME_LENGTH = 200;
    public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 200;
    public static final int DEFAULT_PRIORITY = 5;
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final int DEFAULT_TIMEOUT_SECONDS = 300;
    /** Payload strings and keys may not nest deeper than this (a guard against pathological documents). */
    public static final int MAX_PAYLOAD_DEPTH = 32;
    /**
     * The most bytes a job's payload may hold, as compact UTF-8 JSON: 1,000,000, whatever the entry point (a single
     * submission fits it in its 1 MiB body; a batch's items and on_complete are held to it too).
     */
    public static final int MAX_PAYLOAD_BYTES = 1_000_000;
    /** The highest max_concurrent: more is no limit in practice. */
    public static final int MAX_CONCURRENT_LIMIT = 10_000;

    /** The validated specification, with defaults applied. */
    public JobSpec validate() {
        String n = requireText("name", name, MAX_NAME_LENGTH, "a short human-readable name such as \"nightly-report\"");
        String ex = requireText("executor", executor, 100, "the executor that runs the job, e.g. \"shell\" or \"http\"");
        Map<String, Object> p = payload == null ? Map.of() : payload;
        checkPayload("payload", p, 0);
        String cron = cronExpr == null ? null : cronExpr.trim();
        if (cron != null) {
            checkNoNul("cron_expr", cron);
            if (cron.isEmpty()) {
                throw new ValidationException("cron_expr", "cron_expr must not be empty: omit it for a one-off job, "
                        + "or give a cron expression such as \"*/5 * * * *\"");
            }
        }
        if (cron != null && runAt != null) {
            throw new ValidationException("run_at", "give either cron_expr (a recurring job) or run_at (a one-off run "
                    + "at that time), not both");
        }
        String tz = timezone == null ? "UTC" : timezone;
        checkNoNul("timezone", tz);
        ZoneId zone;
        try {
            zone = ZoneId.of(tz);
        } catch (DateTimeException e) {
            throw new ValidationException("timezone", "timezone '" + printable(tz) + "' is not a known IANA time zone: "
                    + "use a name such as \"UTC\", \"Europe/Berlin\" or \"America/New_York\"");
        }
        int prio = inRange("priority", priority, DEFAULT_PRIORITY, 1, 9, " (1 is the highest)");
        int attempts = inRange("max_attempts", maxAttempts, DEFAULT_MAX_ATTEMPTS, 1, 100, "");
        int timeout = inRange("timeout_seconds", timeoutSeconds, DEFAULT_TIMEOUT_SECONDS, 1, 86_400, "");
        CatchUp cu;
        try {
            cu = catchUp == null ? CatchUp.SKIP : CatchUp.fromWire(catchUp);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("catch_up", "catch_up must be \"skip\" or \"once\", was '" + printable(catchUp) + "'");
        }
        if (idempotencyKey != null) {
            checkNoNul("idempotency_key", idempotencyKey);
            if (idempotencyKey.indexOf(io.forgeflow.domain.tenant.Tenants.SEPARATOR) >= 0) {
                // it stands between a tenant's name and its keys (Tenants.scopedKey)
                throw new ValidationException("idempotency_key", "idempotency_key must not contain the control "
                        + "character U+001F");
            }
            if (idempotencyKey.isEmpty() || idempotencyKey.length() > MAX_IDEMPOTENCY_KEY_LENGTH) {
                throw new ValidationException("idempotency_key", "idempotency_key must be 1 to "
                        + MAX_IDEMPOTENCY_KEY_LENGTH + " characters, was " + idempotencyKey.length());
            }
        }
        String q = queue == null ? QueueNames.DEFAULT : QueueNames.require("queue", queue);
        if (concurrencyKey != null) {
            checkNoNul("concurrency_key", concurrencyKey);
            if (concurrencyKey.chars().anyMatch(Character::isISOControl)) {
                throw new ValidationException("concurrency_key", "concurrency_key must not contain control characters "
                        + "(newlines, tabs, escapes): use a plain name such as \"billing\"");
            }
            if (concurrencyKey.isBlank() || concurrencyKey.length() > QueueNames.MAX_KEY_LENGTH) {
                throw new ValidationException("concurrency_key", "concurrency_key must be 1 to "
                        + QueueNames.MAX_KEY_LENGTH + " characters and not blank, e.g. \"billing\"");
            }
            if (concurrencyKey.startsWith("job:")) {
                throw new ValidationException("concurrency_key", "concurrency_key must not start with \"job:\": that "
                        + "prefix is reserved for the key of a job that gives max_concurrent alone");
            }
            if (maxConcurrent == null) {
                throw new ValidationException("max_concurrent", "max_concurrent is required with concurrency_key: "
                        + "how many runs sharing the key may run at once across the cluster, e.g. 2");
            }
        }
        Integer limit = maxConcurrent == null ? null
                : inRange("max_concurrent", maxConcurrent, 1, 1, MAX_CONCURRENT_LIMIT, "");
        Overlap ov;
        try {
            ov = overlap == null ? Overlap.ALLOW : Overlap.fromWire(overlap);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("overlap", "overlap must be \"allow\", \"skip\", \"queue_one\" or "
                    + "\"cancel_running\", was '" + printable(overlap) + "'");
        }
        if (ov != Overlap.ALLOW && cron == null) {
            throw new ValidationException("overlap", "overlap applies to recurring jobs only: give cron_expr, or "
                    + "leave overlap out (a one-off job has a single run)");
        }
        String unique = uniqueKey(cron);
        Map<String, String> l = Labels.validate(labels);
        ScheduleControls controls = (schedule == null ? ScheduleControls.NONE : schedule).validate(cron != null);
        String sequence = sequenceKey(cron);
        return new JobSpec(n, ex, p, cron, runAt, zone.getId(), prio, attempts, timeout, cu, idempotencyKey, q,
                concurrencyKey, limit, ov, unique, retry(), l, controls, sequence,
                sequence == null ? null : onDead == null ? ON_DEAD_BLOCK : onDead,
                notices == null ? null : notices.validate(), debounce(cron, unique, sequence),
                throttle == null ? null : throttle.validate());
    }

    /** {@code debounce}: one-off jobs due now only, outside unique keys and sequences. */
    private Debounce debounce(String cron, String unique, String sequence) {
        if (debounce == null) {
            return null;
        }
        Debounce checked = debounce.validate();
        String clash = cron != null ? "cron_expr (a recurring job's ticks are its own)"
                : runAt != null ? "run_at (a debounced run is due when its burst ends)"
                : unique != null ? "unique_key (a debounce key already joins submissions)"
                : sequence != null ? "sequence_key" : null;
        if (clash != null) {
            throw new ValidationException("debounce", "debounce applies to one-off jobs due now and does not go with "
                    + clash + ": leave one of them out");
        }
        return checked;
    }

    /** {@code sequence_key}: 1-200 characters, no control characters, one-off jobs only; {@code on_dead} with it. */
    private String sequenceKey(String cron) {
        if (onDead != null && !ON_DEAD_BLOCK.equals(onDead) && !ON_DEAD_CONTINUE.equals(onDead)) {
            throw new ValidationException("on_dead", "on_dead must be \"block\" (a dead run holds the sequence "
                    + "until it is requeued) or \"continue\", was '" + printable(onDead) + "'");
        }
        if (sequenceKey == null) {
            if (onDead != null) {
                throw new ValidationException("on_dead", "on_dead needs sequence_key: give the sequence the job "
                        + "joins, or leave on_dead out");
            }
            return null;
        }
        if (sequenceKey.isBlank() || sequenceKey.length() > QueueNames.MAX_KEY_LENGTH
                || sequenceKey.chars().anyMatch(Character::isISOControl)) {
            throw new ValidationException("sequence_key", "sequence_key must be 1 to " + QueueNames.MAX_KEY_LENGTH
                    + " characters, not blank and without control characters, e.g. \"order-42\"");
        }
        if (cron != null) {
            throw new ValidationException("sequence_key", "sequence_key applies to one-off jobs only: a recurring "
                    + "job's ticks already run in order (see overlap); leave cron_expr or sequence_key out");
        }
        return sequenceKey;
    }

    /** {@code retry}: each part 1-86400 s, base at most max when both are given; null when neither is given. */
    private RetryOverride retry() {
        Integer base = retryBaseSeconds == null ? null
                : inRange("retry.base_seconds", retryBaseSeconds, 0, 1, RetryOverride.MAX_SECONDS, "");
        Integer max = retryMaxSeconds == null ? null
                : inRange("retry.max_seconds", retryMaxSeconds, 0, 1, RetryOverride.MAX_SECONDS, "");
        if (base != null && max != null && base > max) {
            throw new ValidationException("retry.base_seconds", "retry.base_seconds (" + base + ") must be at most "
                    + "retry.max_seconds (" + max + "): the first retry waits up to base_seconds, later ones double up "
                    + "to max_seconds");
        }
        return RetryOverride.of(base, max);
    }

    /** Whether a unique-key conflict answers with the live job rather than 409 (validated by {@link #validate()}). */
    public boolean returnsExistingOnUniqueConflict() {
        return UNIQUE_RETURN_EXISTING.equals(uniqueOnConflict);
    }

    private String uniqueKey(String cron) {
        if (uniqueOnConflict != null && !UNIQUE_REJECT.equals(uniqueOnConflict)
                && !UNIQUE_RETURN_EXISTING.equals(uniqueOnConflict)) {
            throw new ValidationException("unique_on_conflict", "unique_on_conflict must be \"reject\" (answer 409) "
                    + "or \"return_existing\" (answer with the live job), was '" + printable(uniqueOnConflict) + "'");
        }
        if (uniqueKey == null) {
            if (uniqueOnConflict != null) {
                throw new ValidationException("unique_on_conflict", "unique_on_conflict needs unique_key: give the "
                        + "key, e.g. \"sync-customer-42\", or leave unique_on_conflict out");
            }
            return null;
        }
        checkNoNul("unique_key", uniqueKey);
        if (uniqueKey.chars().anyMatch(Character::isISOControl)) {
            throw new ValidationException("unique_key", "unique_key must not contain control characters (newlines, "
                    + "tabs, escapes): use a plain name such as \"sync-customer-42\"");
        }
        if (uniqueKey.isBlank() || uniqueKey.length() > MAX_UNIQUE_KEY_LENGTH) {
            throw new ValidationException("unique_key", "unique_key must be 1 to " + MAX_UNIQUE_KEY_LENGTH
                    + " characters and not blank, e.g. \"sync-customer-42\"; was " + uniqueKey.length());
        }
        if (cron != null) {
            throw new ValidationException("unique_key", "unique_key applies to one-off jobs only: a recurring job "
                    + "has overlap to keep its runs apart (\"skip\", \"queue_one\")");
        }
        return uniqueKey;
    }

    private static String requireText(String field, String value, int max, String hint) {
        if (value == null) {
            throw new ValidationException(field, field + " is required: " + hint);
        }
        checkNoNul(field, value);
        if (value.isBlank()) {
            throw new ValidationException(field, field + " must not be blank: " + hint);
        }
        if (value.length() > max) {
            throw new ValidationException(field, field + " must be at most " + max + " characters, was " + value.length());
        }
        return value;
    }

    private static int inRange(String field, Integer value, int dflt, int min, int max, String note) {
        if (value == null) {
            return dflt;
        }
        if (value < min || value > max) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + note
                    + ", was " + value);
        }
        return value;
    }

    private static void checkNoNul(String field, String value) {
        if (value.indexOf('\0') >= 0) {
            throw new ValidationException(field, field + " must not contain NUL (\\u0000) characters");
        }
    }

    private static void checkPayload(String path, Object value, int depth) {
        if (depth > MAX_PAYLOAD_DEPTH) {
            throw new ValidationException("payload", "payload nests deeper than " + MAX_PAYLOAD_DEPTH + " levels at " + path);
        }
        if (value instanceof String s) {
            checkNoNul(path, s);
        } else if (value instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String key = String.valueOf(e.getKey());
                checkNoNul(path, key);
                checkPayload(path + "." + key, e.getValue(), depth + 1);
            }
        } else if (value instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                checkPayload(path + "[" + i + "]", l.get(i), depth + 1);
            }
        }
    }

    private static String printable(String s) {
        String cut = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        return cut.replace('\0', '?');
    }
}
