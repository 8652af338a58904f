package io.forgeflow.spring;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One job for a handler, as {@link ForgeFlow.JobBuilder} made it: what {@link ForgeFlow#submit} enqueues. Null
 * fields take the server's defaults (priority 5, 3 attempts, 300 s, queue {@code default}, due now).
 *
 * @param handler the handler's name (the payload's {@code handler})
 * @param args    the handler's args: a record, a map or a {@code JsonNode}, written as a JSON object; null for none
 * @param name    the job's name as listed; null for the handler's name
 */
public record HandlerJob(String handler, Object args, String name, Instant runAt, Integer priority,
                         Integer maxAttempts, Integer timeoutSeconds, String queue, String idempotencyKey,
                         String concurrencyKey, Integer maxConcurrent, Map<String, String> labels) {
    public HandlerJob {
        Objects.requireNonNull(handler, "handler");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** The name the job is listed under: {@link #name()}, or the handler's name. */
    public String jobName() {
        return name == null ? handler : name;
    }
}
