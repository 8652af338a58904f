package io.forgeflow.server;

import io.forgeflow.server.secrets.SecretFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every secret setting can be given as a file (FORGEFLOW_X_FILE), as container secrets are; never both ways. */
class SecretFilesTest {
    @TempDir
    Path dir;

    Path file(String name, String content) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, content);
        return f;
    }

    ForgeFlowConfiguration apply(Map<String, String> env) {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, env);
        return config;
    }

    @Test
    void theDatabaseUrlTokensAndMetricsTokenAreReadFromTheirFiles() throws Exception {
        ForgeFlowSettings s = apply(Map.of(
                "FORGEFLOW_DATABASE_URL_FILE", file("db", "postgresql://u:secret-pw@db:5432/ff\n").toString(),
                "FORGEFLOW_API_TOKENS_FILE", file("tokens", "admin:tok-1,submit:tok-2\n").toString(),
                "FORGEFLOW_METRICS_TOKEN_FILE", file("metrics", "metrics-tok\r\n").toString())).forgeflow();

        assertThat(s.databaseUrl).isEqualTo("postgresql://u:secret-pw@db:5432/ff");
        assertThat(s.apiTokens).containsExactly("admin:tok-1,submit:tok-2");
        assertThat(s.metricsToken).isEqualTo("metrics-tok");
    }

    @ParameterizedTest
    @ValueSource(strings = {"FORGEFLOW_DATABASE_URL", "FORGEFLOW_API_TOKENS", "FORGEFLOW_METRICS_TOKEN"})
    void settingBothAVariableAndItsFileIsAnErrorNamingBoth(String name) throws Exception {
        Map<String, String> env = Map.of(name, "inline", name + "_FILE", file("f", "from-file").toString());

        assertThatThrownBy(() -> SecretFiles.resolve(env)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name + " and " + name + "_FILE are both set").hasMessageNotContaining("inline")
                .hasMessageNotContaining("from-file");
    }

    @Test
    void aMissingOrEmptyFileIsAnErrorNamingTheVariable() throws Exception {
        assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_API_TOKENS_FILE", dir.resolve("absent").toString())))
                .hasMessageContaining("FORGEFLOW_API_TOKENS_FILE=").hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_METRICS_TOKEN_FILE", file("empty", "\n").toString())))
                .hasMessageContaining("FORGEFLOW_METRICS_TOKEN_FILE=").hasMessageContaining("is empty");
    }

    @Test
    void everySecretTheServerReadsHasAFileForm() {
        assertThat(SecretFiles.SECRET_VARIABLES).contains(EnvironmentOverrides.SETTINGS_VARIABLES.get("databaseUrl"),
                EnvironmentOverrides.SETTINGS_VARIABLES.get("apiTokens"),
                EnvironmentOverrides.SETTINGS_VARIABLES.get("metricsToken"));
        // a setting whose name says token or password is a secret
        EnvironmentOverrides.SETTINGS_VARIABLES.values().stream()
                .filter(v -> v.contains("TOKEN") || v.contains("PASSWORD") || v.contains("SECRET")
                        || (v.startsWith("FORGEFLOW_DATABASE") && v.endsWith("_URL")))
                .forEach(v -> assertThat(SecretFiles.SECRET_VARIABLES).as(v).contains(v));
    }

    @Test
    void theJobUserIsASetting() {
        assertThat(apply(Map.of("FORGEFLOW_JOB_USER", " nobody ")).forgeflow().jobUser).isEqualTo("nobody");
        assertThat(apply(Map.of()).forgeflow().jobUser).isEmpty();
    }
}
