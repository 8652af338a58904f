package io.forgeflow.architecture;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The lease protocol's model (docs/model/lease.pml) checked exhaustively by Spin through scripts/check-model.sh: the
 * protocol holds and every mutant of it is found violating it. Without spin the test is skipped on a developer's
 * machine and fails in CI ({@code CI=true}), where .ci/run installs it.
 */
class ProtocolModelTest {

    @Test
    void theLeaseProtocolHoldsAndEveryMutantIsFoundViolatingIt() throws Exception {
        Path root = Path.of("").toAbsolutePath().getParent();
        Path script = root.resolve("scripts/check-model.sh");
        assertThat(script).as("the model check script").exists();
        if (!onPath("spin") || !onPath("gcc")) {
            String why = "spin and gcc are needed to check docs/model/lease.pml (Debian: apt-get install spin gcc)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(why + "; CI must run this check");
            }
            Assumptions.abort(why);
        }

        Path log = Files.createTempFile("check-model", ".log");
        try {
            Process check = new ProcessBuilder("bash", script.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!check.waitFor(10, TimeUnit.MINUTES)) {
                check.destroyForcibly();
                fail("scripts/check-model.sh did not end within 10 minutes:\n" + Files.readString(log));
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            System.out.println(output);
            assertThat(check.exitValue()).as("scripts/check-model.sh's exit status; its output:\n%s", output).isZero();
            assertThat(output).contains("the protocol holds and every mutant was found violating it");
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
