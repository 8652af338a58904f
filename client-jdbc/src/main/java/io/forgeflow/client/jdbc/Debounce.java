package io.forgeflow.client.jdbc;

/**
 * A job's debounce (docs/API.md "Flow control"): submissions with {@code key} within {@code periodSeconds} collapse
 * into one run. {@code edge} {@code "trailing"} (null: the default) or {@code "leading"}; {@code maxWaitSeconds}
 * trailing only, null: 10 periods. Checked by the database (SQLSTATE 22023 naming {@code debounce.<part>}).
 */
public record Debounce(String key, Integer periodSeconds, Integer maxWaitSeconds, String edge) {
    /** The argument {@code forgeflow.enqueue(debounce => ...)} takes; null parts left out. */
    String json() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("key", key);
        m.put("period_seconds", periodSeconds);
        if (maxWaitSeconds != null) {
            m.put("max_wait_seconds", maxWaitSeconds);
        }
        if (edge != null) {
            m.put("edge", edge);
        }
        m.values().removeIf(java.util.Objects::isNull);
        return Json.write(m);
    }
}
