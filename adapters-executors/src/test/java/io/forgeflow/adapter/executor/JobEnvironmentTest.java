package io.forgeflow.adapter.executor;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JobEnvironmentTest {
    static final Map<String, String> NODE = Map.ofEntries(
            Map.entry("PATH", "/usr/bin:/bin"), Map.entry("HOME", "/home/ff"), Map.entry("LANG", "C.UTF-8"),
            Map.entry("LC_ALL", "C.UTF-8"), Map.entry("LC_TIME", "de_DE.UTF-8"), Map.entry("TZ", "Europe/Berlin"),
            Map.entry("USER", "ff"), Map.entry("TMPDIR", "/var/tmp"),
            Map.entry("FORGEFLOW_DATABASE_URL", "postgresql://ff:db-s3cret@db:5432/ff"),
            Map.entry("FORGEFLOW_API_TOKENS", "admin:api-s3cret"), Map.entry("FORGEFLOW_METRICS_TOKEN", "m-s3cret"),
            Map.entry("AWS_SECRET_ACCESS_KEY", "aws-s3cret"), Map.entry("AWS_REGION", "eu-central-1"),
            Map.entry("PGPASSWORD", "pg-s3cret"), Map.entry("FORGEFLOW_RUN_ID", "node-forged"),
            Map.entry("LOGNAME", "ff"), Map.entry("XLC_X", "no"));

    @Test
    void passesOnlyTheAllowListAndTheAttemptsOwnVariables() {
        Map<String, String> env = new HashMap<>(NODE);
        JobEnvironment.of(NODE).applyTo(env, "run-1", "job-1", 2);

        assertThat(env).containsOnlyKeys("PATH", "HOME", "LANG", "LC_ALL", "LC_TIME", "TZ", "USER", "TMPDIR",
                "FORGEFLOW_RUN_ID", "FORGEFLOW_JOB_ID", "FORGEFLOW_ATTEMPT");
        assertThat(env).containsEntry("PATH", "/usr/bin:/bin").containsEntry("LC_TIME", "de_DE.UTF-8")
                .containsEntry("FORGEFLOW_RUN_ID", "run-1").containsEntry("FORGEFLOW_JOB_ID", "job-1")
                .containsEntry("FORGEFLOW_ATTEMPT", "2");
        assertThat(env.values()).noneMatch(v -> v.contains("s3cret"));
    }

    @Test
    void passesTheNamesTheOperatorListsButNeverItsOwnList() {
        Map<String, String> node = new HashMap<>(NODE);
        node.put(JobEnvironment.PASS_VARIABLE, " AWS_REGION , ,FORGEFLOW_METRICS_TOKEN,NOT_SET ");
        JobEnvironment environment = JobEnvironment.of(node);

        assertThat(environment.passed()).containsEntry("AWS_REGION", "eu-central-1")
                .containsEntry("FORGEFLOW_METRICS_TOKEN", "m-s3cret")
                .doesNotContainKeys("NOT_SET", JobEnvironment.PASS_VARIABLE, "AWS_SECRET_ACCESS_KEY");
    }

    @Test
    void aJobWithoutAJobIdGetsAnEmptyOne() {
        Map<String, String> env = new HashMap<>();
        JobEnvironment.of(Map.of()).applyTo(env, "run-9", null, 1);
        assertThat(env).containsExactlyInAnyOrderEntriesOf(Map.of("FORGEFLOW_RUN_ID", "run-9", "FORGEFLOW_JOB_ID", "",
                "FORGEFLOW_ATTEMPT", "1"));
    }
}
