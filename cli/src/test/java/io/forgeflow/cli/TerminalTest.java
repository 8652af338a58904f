package io.forgeflow.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The token from FORGEFLOW_TOKEN, or from the file FORGEFLOW_TOKEN_FILE names (container secrets). */
class TerminalTest {
    @TempDir
    Path dir;

    Terminal with(Map<String, String> env) {
        return new Terminal(System.out, System.err, env);
    }

    @Test
    void theTokenIsReadFromItsFileWithoutTheTrailingLineBreak() throws Exception {
        Path file = Files.writeString(dir.resolve("t"), "cli-token\n");

        assertThat(with(Map.of("FORGEFLOW_TOKEN_FILE", file.toString())).variable("FORGEFLOW_TOKEN")).isEqualTo("cli-token");
        assertThat(with(Map.of("FORGEFLOW_TOKEN", "x")).variable("FORGEFLOW_TOKEN")).isEqualTo("x");
        assertThat(with(Map.of("FORGEFLOW_TOKEN", " ")).variable("FORGEFLOW_TOKEN")).isNull();
        assertThat(with(Map.of()).variable("FORGEFLOW_TOKEN")).isNull();
    }

    @Test
    void bothFormsAMissingOrAnEmptyFileAreErrorsNamingTheVariable() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty"), "\n");

        Path token = Files.writeString(dir.resolve("token"), "from-file");
        assertThatThrownBy(() -> with(Map.of("FORGEFLOW_TOKEN", "inline", "FORGEFLOW_TOKEN_FILE", token.toString()))
                .variable("FORGEFLOW_TOKEN")).hasMessageContaining("FORGEFLOW_TOKEN and FORGEFLOW_TOKEN_FILE are both set")
                .hasMessageNotContaining("inline").hasMessageNotContaining("from-file");
        assertThatThrownBy(() -> with(Map.of("FORGEFLOW_TOKEN_FILE", dir.resolve("absent").toString()))
                .variable("FORGEFLOW_TOKEN")).hasMessageContaining("FORGEFLOW_TOKEN_FILE=").hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> with(Map.of("FORGEFLOW_TOKEN_FILE", empty.toString())).variable("FORGEFLOW_TOKEN"))
                .hasMessageContaining("FORGEFLOW_TOKEN_FILE=").hasMessageContaining("is empty");
    }
}
