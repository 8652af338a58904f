package io.forgeflow.admin.support;

/** Remembered settings (server URL, API token): java.util.prefs in the app, a map in tests. */
public interface SettingsStore {

    /** The stored value, or fallback when none. */
    String get(String key, String fallback);

    /** Stores value; null removes the key. */
    void put(String key, String value);
}
