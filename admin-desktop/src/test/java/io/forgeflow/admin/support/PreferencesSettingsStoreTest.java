package io.forgeflow.admin.support;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;

import static org.assertj.core.api.Assertions.assertThat;

class PreferencesSettingsStoreTest {
    final Preferences node = Preferences.userRoot().node("io/forgeflow/admin-test-" + ProcessHandle.current().pid());
    final PreferencesSettingsStore store = new PreferencesSettingsStore(node);

    @AfterEach
    void removeNode() throws BackingStoreException {
        node.removeNode();
    }

    @Test
    void remembersAndForgetsValues() {
        store.put("serverUrl", "http://ops:8080");
        assertThat(new PreferencesSettingsStore(node).get("serverUrl", "x")).isEqualTo("http://ops:8080");

        store.put("serverUrl", null);
        assertThat(store.get("serverUrl", "fallback")).isEqualTo("fallback");
    }

    @Test
    void secretsAreDescribedWithoutTheirCharacters() {
        assertThat(Secrets.describe("abcdef")).isEqualTo("set (6 characters)");
        assertThat(Secrets.describe(" ")).isEqualTo("none");
        assertThat(Secrets.describe(null)).isEqualTo("none");
    }
}
