package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of {@code POST /api/jobs}. Fields left null are not sent, so the server's defaults apply (timezone UTC,
 * priority 5, max_attempts 3, timeout_seconds 300, catch_up skip). Build one with {@link #shell(String, String)},
 * {@link #http(String, String)} or {@link #builder(String, String)}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobRequest(
        String name,
        String executor,
        Map<String, Object> payload,
        String cronExpr,
        Instant runAt,
        String timezone,
        Integer priority,
        Integer maxAttempts,
        Integer timeoutSeconds,
        String catchUp,
        String idempotencyKey) {

    /** A job for the {@code shell} executor: {@code /bin/sh -c command}. */
    public static Builder shell(String name, String command) {
        return builder(name, "shell").payload(Map.of("command", command));
    }

    /** A job for the {@code http} executor: a POST to url (change method, headers or body through the payload). */
    public static Builder http(String name, String url) {
        return builder(name, "http").payload(Map.of("url", url));
    }

    public static Builder builder(String name, String executor) {
        return new Builder(name, executor);
    }

    /** Fluent construction; every setter is optional. */
    public static final class Builder {
        private final String name;
        private final String executor;
        private Map<String, Object> payload;
        private String cronExpr;
        private Instant runAt;
        private String timezone;
        private Integer priority;
        private Integer maxAttempts;
        private Integer timeoutSeconds;
        private String catchUp;
        private String idempotencyKey;

        private Builder(String name, String executor) {
            this.name = name;
            this.executor = executor;
        }

        public Builder payload(Map<String, ?> payload) {
            this.payload = payload == null ? null : new LinkedHashMap<>(payload);
            return this;
        }

        public Builder cron(String cronExpr) {
            this.cronExpr = cronExpr;
            return this;
        }

        public Builder cron(String cronExpr, String timezone) {
            this.cronExpr = cronExpr;
            this.timezone = timezone;
            return this;
        }

        public Builder runAt(Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        public Builder timezone(String timezone) {
            this.timezone = timezone;
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

        public Builder catchUp(String catchUp) {
            this.catchUp = catchUp;
            return this;
        }

        public Builder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public JobRequest build() {
            return new JobRequest(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts,
                    timeoutSeconds, catchUp, idempotencyKey);
        }
    }
}
