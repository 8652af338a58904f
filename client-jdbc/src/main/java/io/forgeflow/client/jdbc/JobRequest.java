package io.forgeflow.client.jdbc;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A one-off or delayed job for {@code forgeflow.enqueue()}: the fields of {@code POST /v1/jobs} that the function
 * takes (docs/API.md). Null means "the server's default" (priority 5, 3 attempts, 300 s, queue {@code default}, due
 * now). Values are checked by the database, which names the field at fault.
 *
 * @param payloadJson      the payload as a JSON object text; null for {@code {}}
 * @param retryBaseSeconds the job's own retry backoff base (API {@code retry.base_seconds}); null: the nodes' default
 * @param retryMaxSeconds  the job's own retry backoff cap (API {@code retry.max_seconds}); null: the nodes' default
 * @param labels           string to string (docs/API.md, "Jobs"), copied to the run; null or empty for none
 */
public record JobRequest(String name, String executor, String payloadJson, Instant runAt, Integer priority,
                         Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                         String concurrencyKey, Integer maxConcurrent, Integer retryBaseSeconds,
                         Integer retryMaxSeconds, Map<String, String> labels) {

    public JobRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(executor, "executor");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
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

        public JobRequest build() {
            return new JobRequest(name, executor, payloadJson, runAt, priority, maxAttempts, timeoutSeconds, queue,
                    idempotencyKey, concurrencyKey, maxConcurrent, retryBaseSeconds, retryMaxSeconds, labels);
        }
    }
}
