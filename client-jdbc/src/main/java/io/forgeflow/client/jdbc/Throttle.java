package io.forgeflow.client.jdbc;

/**
 * A job's throttle (docs/API.md "Flow control"): at most {@code count} runs sharing {@code key} start per
 * {@code perSeconds} across the cluster. Checked by the database (SQLSTATE 22023 naming {@code throttle.<part>}).
 */
public record Throttle(String key, Integer count, Integer perSeconds) {
    /** The argument {@code forgeflow.enqueue(throttle => ...)} takes; null parts left out. */
    String json() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("key", key);
        m.put("count", count);
        m.put("per_seconds", perSeconds);
        m.values().removeIf(java.util.Objects::isNull);
        return Json.write(m);
    }
}
