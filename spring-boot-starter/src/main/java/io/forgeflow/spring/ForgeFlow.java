package io.forgeflow.spring;

import io.forgeflow.client.jdbc.Enqueued;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Enqueues jobs for handlers, inside the caller's Spring transaction when there is one: the job becomes visible to
 * workers when that transaction commits, and a rollback leaves nothing. Without a transaction it is committed at
 * once. The starter's bean writes to ForgeFlow's tables through the application's {@code DataSource}; the test kit
 * ({@code forgeflow-test}) puts its own in its place.
 *
 * <pre>{@code
 * @Transactional
 * public void place(Order order) {
 *     orders.insert(order);
 *     forgeFlow.enqueue("send-receipt", new Receipt(order.id(), order.email()));
 *     forgeFlow.job("ship").args(Map.of("order_id", order.id())).delay(Duration.ofMinutes(5)).queue("shipping").enqueue();
 * }
 * }</pre>
 */
public interface ForgeFlow {

    /** Enqueues {@code job}; see the class comment for the transaction it joins. */
    Enqueued submit(HandlerJob job);

    /** A job for {@code handler} with {@code args} (a record, map or {@code JsonNode}; null for none), due now. */
    default Enqueued enqueue(String handler, Object args) {
        return job(handler).args(args).enqueue();
    }

    /** A builder for a job of {@code handler}; {@link JobBuilder#enqueue()} submits it. */
    default JobBuilder job(String handler) {
        return new JobBuilder(this, handler);
    }

    /** Settings of one job; every setter is optional. */
    final class JobBuilder {
        private final ForgeFlow forgeFlow;
        private final String handler;
        private Object args;
        private String name;
        private Instant runAt;
        private Integer priority;
        private Integer maxAttempts;
        private Integer timeoutSeconds;
        private String queue;
        private String idempotencyKey;
        private String concurrencyKey;
        private Integer maxConcurrent;
        private final Map<String, String> labels = new LinkedHashMap<>();

        JobBuilder(ForgeFlow forgeFlow, String handler) {
            this.forgeFlow = Objects.requireNonNull(forgeFlow, "forgeFlow");
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        /** The handler's args: a record, a map or a {@code JsonNode}, written as a JSON object. */
        public JobBuilder args(Object args) {
            this.args = args;
            return this;
        }

        /** The job's name in lists (default: the handler's name). */
        public JobBuilder name(String name) {
            this.name = name;
            return this;
        }

        /** Due at {@code runAt} instead of at the commit. */
        public JobBuilder runAt(Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        /** Due {@code delay} from now. */
        public JobBuilder delay(Duration delay) {
            this.runAt = Instant.now().plus(delay);
            return this;
        }

        /** 1 (highest) to 9; default 5. */
        public JobBuilder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /** 1 to 100; default 3. */
        public JobBuilder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The budget of each attempt, 1 s to 1 day; default 300 s. */
        public JobBuilder timeout(Duration timeout) {
            this.timeoutSeconds = Math.toIntExact(timeout.toSeconds());
            return this;
        }

        public JobBuilder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /** The same key with the same job again returns the first job ({@code created = false}). */
        public JobBuilder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        /** At most {@code maxConcurrent} runs sharing {@code key} run at once across the cluster. */
        public JobBuilder concurrency(String key, int maxConcurrent) {
            this.concurrencyKey = key;
            this.maxConcurrent = maxConcurrent;
            return this;
        }

        public JobBuilder label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        public HandlerJob build() {
            return new HandlerJob(handler, args, name, runAt, priority, maxAttempts, timeoutSeconds, queue,
                    idempotencyKey, concurrencyKey, maxConcurrent, labels);
        }

        /** Enqueues the job; see {@link ForgeFlow}. */
        public Enqueued enqueue() {
            return forgeFlow.submit(build());
        }
    }
}
