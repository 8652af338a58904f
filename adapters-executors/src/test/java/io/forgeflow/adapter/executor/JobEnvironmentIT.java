package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.ExecutionResult;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;

/** A real shell job sees the allow-list of {@link JobEnvironment}, not this JVM's environment. */
class JobEnvironmentIT {
    /** What /bin/sh itself adds to the environment it shows. */
    static final Set<String> SHELL_OWN = Set.of("PWD", "SHLVL", "_", "OLDPWD");

    static boolean allowed(String name) {
        return JobEnvironment.ALWAYS.contains(name) || name.startsWith("LC_") || SHELL_OWN.contains(name)
                || Set.of("FORGEFLOW_RUN_ID", "FORGEFLOW_JOB_ID", "FORGEFLOW_ATTEMPT").contains(name);
    }

    @Test
    void aShellJobSeesNoneOfTheWorkersOtherVariables() {
        Set<String> hidden = System.getenv().keySet().stream().filter(n -> !allowed(n)).collect(Collectors.toSet());
        assertThat(hidden).as("this JVM must have variables outside the allow-list for the test to mean anything")
                .isNotEmpty();

        ExecutionResult result = new ShellRunExecutor().execute(anAttempt().withIds("run-5", "job-5", 1)
                .withPayload(Map.of("command", "env")).build());

        Set<String> seen = Arrays.stream(result.output().split("\n")).filter(l -> l.contains("="))
                .map(l -> l.substring(0, l.indexOf('='))).collect(Collectors.toSet());
        assertThat(seen).allMatch(JobEnvironmentIT::allowed).doesNotContainAnyElementsOf(hidden)
                .contains("PATH", "FORGEFLOW_RUN_ID", "FORGEFLOW_JOB_ID", "FORGEFLOW_ATTEMPT");
        for (String name : hidden) {
            String value = System.getenv(name);
            if (value.length() >= 12) { // not under another name either
                assertThat(result.output().split("\n")).as(name).noneMatch(line -> line.endsWith("=" + value));
            }
        }
    }
}
