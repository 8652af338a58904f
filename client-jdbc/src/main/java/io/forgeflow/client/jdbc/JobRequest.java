package io.forgeflow.client.jdbc;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A one-off or delayed job for {@code forgeflow.enqueue()}: the fields of {@code POST /v1/jobs} that the function
 * takes (docs/API.md). Null means "the server's default" (priority 5, 3 attempts, 300 s, queue {@code default}, due
 * now). Values are checked by the database, which names the field at fault.
 *
 * @param payloadJson      the payload as a JSON object text; null for {@code {}}
 * @param retryBaseSeconds the job's own retry backoff base (API {@code retry.base_seconds}); null: the nodes' default
 * @param retryMaxSeconds  the job's own retry backoff cap (API {@code retry.max_seconds}); null: the nodes' default
 * @param labels           string to string (docs/API.md, "Jobs"), copied to the run; null or empty for none
 * @param traceparent      the caller's W3C trace context ({@code 00-<32 hex trace id>-<16 hex span id>-<2 hex
 *                         flags>}): the job and its run join that trace; null for none
 * @param tracestate       the W3C {@code tracestate} that goes with it (at most 512 characters); null for none
 * @param sequenceKey      the sequence the job's run joins: runs with one key start one at a time, in submission
 *                         order (docs/API.md "Flow control"); null for none. Needs a READ COMMITTED transaction
 * @param onDead           with a sequence key: {@code "block"} (default: a dead run holds the sequence until it is
 *                         requeued) or {@code "continue"}; null for the default
 * @param debounce         submissions with its key collapse into one run (one-off jobs due now; docs/API.md "Flow
 *                         control"); {@link Enqueued#debounced()} says the call joined an existing run. Needs a READ
 *                         COMMITTED transaction; null for none
 * @param throttle         at most {@code count} runs sharing its key start per {@code perSeconds}; null for none
 * @param tenant           the tenant the job belongs to (1 to 63 of a-z, 0-9, '_', '.', '-'; checked by the
 *                         database); its keys are its own, so the same key in two tenants makes two jobs; null for
 *                         {@code default}
 */
public record JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                         Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                         String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                         Integer retryMaxSeconds, Map<String, String> labels, String traceparent,
                         String tracestate, String sequenceKey, String onDead, Debounce debounce,
                         Throttle throttle, String tenant) {

    /** W3C Trace Context, version 00 as read by every version but ff; hex as lower case. */
    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    private static final int MAX_TRACESTATE = 512;

    public JobRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(executor, "executor");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        // checked here rather than by the database, so a bad value does not abort the caller's transaction
        if (traceparent != null) {
            String given = traceparent;
            traceparent = traceparent.trim().toLowerCase(Locale.ROOT);
            if (!TRACEPARENT.matcher(traceparent).matches() || traceparent.startsWith("ff-")
                    || traceparent.substring(3, 35).equals("0".repeat(32))
                    || traceparent.substring(36, 52).equals("0".repeat(16))) {
                throw new IllegalArgumentException("traceparent must be a W3C traceparent such as "
                        + "'00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' (version-trace id-parent id-flags, "
                        + "hex, ids not all zero), was '" + given + "'");
            }
        }
        if (onDead != null && sequenceKey == null) {
            throw new IllegalArgumentException("on_dead needs a sequence key: sequence(key, onDead)");
        }
        if (onDead != null && !onDead.equals("block") && !onDead.equals("continue")) {
            throw new IllegalArgumentException("on_dead must be \"block\" or \"continue\", was \"" + onDead + "\"");
        }
        tracestate = tracestate == null || tracestate.isBlank() ? null : tracestate.trim();
        if (tracestate != null && traceparent == null) {
            throw new IllegalArgumentException("tracestate needs a traceparent: W3C ignores a tracestate without one");
        }
        if (tracestate != null && tracestate.length() > MAX_TRACESTATE) {
            throw new IllegalArgumentException("tracestate must be at most " + MAX_TRACESTATE + " characters (W3C: at "
                    + "most 32 list members), was " + tracestate.length());
        }
    }

    /** A request in the default tenant (the fields before {@code tenant}). */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                      Integer retryMaxSeconds, Map<String, String> labels, String traceparent, String tracestate,
                      String sequenceKey, String onDead, Debounce debounce, Throttle throttle) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, labels, traceparent, tracestate,
                sequenceKey, onDead, debounce, throttle, null);
    }

    /** A request without flow control (the fields before {@code debounce}). */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                      Integer retryMaxSeconds, Map<String, String> labels, String traceparent, String tracestate,
                      String sequenceKey, String onDead) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, labels, traceparent, tracestate,
                sequenceKey, onDead, null, null);
    }

    /** A request outside any sequence (the fields before {@code sequenceKey}). */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                      Integer retryMaxSeconds, Map<String, String> labels, String traceparent, String tracestate) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, labels, traceparent, tracestate,
                null, null);
    }

    /** A request without trace context (the fields before {@code traceparent}). */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                      Integer retryMaxSeconds, Map<String, String> labels) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, labels, null, null);
    }

    /** A request without a retry policy of its own or labels. */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, null, null, Map.of());
    }

    /** A request with a retry policy of its own, without labels. */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                      Integer retryMaxSeconds) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, Map.of());
    }

    /** A request with labels, without a retry policy of its own. */
    public JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                      Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                      String concurrencyKey, Integer maxConcurrent, Map<String, String> labels) {
        this(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue, idempotencyKey,
                concurrencyKey, maxConcurrent, null, null, labels);
    }

    /** A shell job: {@code {"command": command}}. */
    public static Builder shell(String name, String command) {
        return builder(name, "shell").payload(Map.of("command", command));
    }

    /** An http job: {@code {"url": url}} (POST unless the payload says otherwise). */
    public static Builder http(String name, String url) {
        return builder(name, "http").payload(Map.of("url", url));
    }

    /**
     * A job for an embedded worker's handler (executor {@code java}): {@code {"handler": handler, "args": args}};
     * the handler reads {@code args} as its payload. Null args: none.
     */
    public static Builder handler(String name, String handler, Map<String, ?> args) {
        Map<String, Object> payload = new java.util.LinkedHashMap<>();
        payload.put("handler", handler);
        if (args != null) {
            payload.put("args", args);
        }
        return builder(name, "java").payload(payload);
    }

    public static Builder builder(String name, String executor) {
        return new Builder(name, executor);
    }

    /** Builds a {@link JobRequest}; every setter is optional. */
    public static final class Builder {
        private final String name;
        private final String executor;
        private String payloadJson;
        private Instant runAt;
        private Integer priority;
        private Integer maxAttempts;
        private Integer timeoutSeconds;
        private String queue;
        private String idempotencyKey;
        private String concurrencyKey;
        private Integer maxConcurrent;
        private Integer retryBaseSeconds;
        private Integer retryMaxSeconds;
        private final Map<String, String> labels = new java.util.LinkedHashMap<>();
        private String traceparent;
        private String tracestate;
        private String sequenceKey;
        private String onDead;

        private Builder(String name, String executor) {
            this.name = name;
            this.executor = executor;
        }

        /** The payload as a map of JSON values (strings, numbers, booleans, null, maps, lists), written as JSON. */
        public Builder payload(Map<String, ?> payload) {
            this.payloadJson = payload == null ? null : Json.write(payload);
            return this;
        }

        /** The payload as JSON text (an object), passed as it is. */
        public Builder payloadJson(String json) {
            this.payloadJson = json;
            return this;
        }

        /** Due at {@code runAt} instead of at the commit. */
        public Builder runAt(Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        public Builder priority(Integer priority) {
            this.priority = priority;
            return this;
        }

        public Builder maxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder timeoutSeconds(Integer timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /** The same key and the same request again return the first job's ids ({@code created = false}). */
        public Builder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        /** At most {@code maxConcurrent} runs sharing {@code key} run at once across the cluster. */
        public Builder concurrency(String key, Integer maxConcurrent) {
            this.concurrencyKey = key;
            this.maxConcurrent = maxConcurrent;
            return this;
        }

        /**
         * The job's own retry backoff: the first retry waits up to {@code baseSeconds}, later ones double up to
         * {@code maxSeconds} (each 1-86400, base at most max; null: the nodes' default).
         */
        public Builder retry(Integer baseSeconds, Integer maxSeconds) {
            this.retryBaseSeconds = baseSeconds;
            this.retryMaxSeconds = maxSeconds;
            return this;
        }

        /** A label (key of a-z, 0-9, '_', '.', '-', 1-63 characters; value up to 200); at most 20. */
        public Builder label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        /**
         * The caller's W3C trace context, e.g. the {@code traceparent} (and {@code tracestate}) of the span current in
         * the application: the job keeps it, its run's span continues that trace and the work receives it. A
         * malformed {@code traceparent} is refused here, naming it, before anything reaches the database.
         */
        public Builder trace(String traceparent, String tracestate) {
            this.traceparent = traceparent;
            this.tracestate = tracestate;
            return this;
        }

        /** {@link #trace(String, String)} without a {@code tracestate}. */
        public Builder traceparent(String traceparent) {
            return trace(traceparent, null);
        }

        /**
         * Joins the sequence {@code key}: runs with one key start one at a time, in submission order; {@code onDead}
         * ({@code "block"}, the default when null, or {@code "continue"}) says what a dead run does to the rest.
         */
        public Builder sequence(String key, String onDead) {
            this.sequenceKey = key;
            this.onDead = onDead;
            return this;
        }

        private Debounce debounce;
        private Throttle throttle;

        /**
         * Debounces by {@code key}: enqueues with the key within {@code periodSeconds} collapse into one run with the
         * last payload (trailing edge, waiting at most 10 periods); {@link Enqueued#debounced()} says this call
         * joined an existing run.
         */
        public Builder debounce(String key, Integer periodSeconds) {
            return debounce(key, periodSeconds, null, null);
        }

        /** As {@link #debounce(String, Integer)} with the longest wait (trailing) and the edge (null: trailing). */
        public Builder debounce(String key, Integer periodSeconds, Integer maxWaitSeconds, String edge) {
            this.debounce = new Debounce(key, periodSeconds, maxWaitSeconds, edge);
            return this;
        }

        /** At most {@code count} runs sharing {@code key} start per {@code perSeconds} across the cluster. */
        public Builder throttle(String key, Integer count, Integer perSeconds) {
            this.throttle = new Throttle(key, count, perSeconds);
            return this;
        }

        private String tenant;

        /**
         * The tenant the job belongs to (null: {@code default}); its keys (idempotency, concurrency, sequence,
         * debounce, throttle) are its own. A bad name is the database's {@link java.sql.SQLException} 22023.
         */
        public Builder tenant(String tenant) {
            this.tenant = tenant;
            return this;
        }

        public JobRequest build() {
            return new JobRequest(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue,
                    idempotencyKey, concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, labels,
                    traceparent, tracestate, sequenceKey, onDead, debounce, throttle, tenant);
        }
    }
}
