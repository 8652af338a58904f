package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.RateLimit;

/**
 * A queue as the API shows it (API.md, "Queues"): a tenant's. Every field is present; absent limits are null.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"name", "paused", "max_running", "rate_limit", "pending", "due", "running", "lag_seconds",
        "starts_in_window", "tenant"})
public record QueueResponse(
        @JsonProperty("name") String name,
        @JsonProperty("paused") boolean paused,
        @JsonProperty("max_running") Integer maxRunning,
        @JsonProperty("rate_limit") Rate rateLimit,
        @JsonProperty("pending") long pending,
        @JsonProperty("due") long due,
        @JsonProperty("running") long running,
        @JsonProperty("lag_seconds") double lagSeconds,
        @JsonProperty("starts_in_window") long startsInWindow,
        @JsonProperty("tenant") String tenant) {

    /** A rate limit: at most {@code count} starts in any {@code per_seconds} window. */
    @JsonPropertyOrder({"count", "per_seconds"})
    public record Rate(@JsonProperty("count") int count, @JsonProperty("per_seconds") int perSeconds) {
        static Rate of(RateLimit limit) {
            return limit == null ? null : new Rate(limit.count(), limit.perSeconds());
        }
    }

    static QueueResponse of(QueueInfo q) {
        return new QueueResponse(q.name(), q.paused(), q.limits().maxRunning(), Rate.of(q.limits().rateLimit()),
                q.pending(), q.due(), q.running(), Math.round(q.lag().toMillis() / 10.0) / 100.0, q.startsInWindow(),
                q.tenant());
    }
}
