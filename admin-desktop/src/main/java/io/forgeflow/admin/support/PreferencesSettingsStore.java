package io.forgeflow.admin.support;

import java.util.Objects;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;

/**
 * Settings in the user's {@link Preferences} (on Linux under {@code ~/.java/.userPrefs/io/forgeflow/admin}). The API
 * token is stored there as the user asked (readable by that user only, like a shell history); it is never logged.
 */
public final class PreferencesSettingsStore implements SettingsStore {
    private static final System.Logger LOG = System.getLogger(PreferencesSettingsStore.class.getName());
    private final Preferences node;

    public PreferencesSettingsStore(Preferences node) {
        this.node = Objects.requireNonNull(node, "node");
    }

    /** The console's node: {@code /io/forgeflow/admin} in the user tree. */
    public static PreferencesSettingsStore forUser() {
        return new PreferencesSettingsStore(Preferences.userRoot().node("io/forgeflow/admin"));
    }

    @Override
    public String get(String key, String fallback) {
        return node.get(key, fallback);
    }

    @Override
    public void put(String key, String value) {
        if (value == null) {
            node.remove(key);
        } else {
            node.put(key, value);
        }
        try {
            node.flush();
        } catch (BackingStoreException e) {
            LOG.log(System.Logger.Level.WARNING, "could not save the setting '" + key + "': " + e.getMessage());
        }
    }
}
