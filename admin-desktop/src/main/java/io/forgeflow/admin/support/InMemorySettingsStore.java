package io.forgeflow.admin.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Settings that live as long as the process: for tests, screenshots and {@code --no-remember}. */
public final class InMemorySettingsStore implements SettingsStore {
    private final Map<String, String> values = new ConcurrentHashMap<>();

    @Override
    public String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    @Override
    public void put(String key, String value) {
        if (value == null) {
            values.remove(key);
        } else {
            values.put(key, value);
        }
    }
}
