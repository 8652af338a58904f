package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

import static io.forgeflow.server.NodeSecretsProcessIT.JSON;
import static io.forgeflow.server.NodeSecretsProcessIT.secret;
import static io.forgeflow.server.NodeSecretsProcessIT.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A node run as root with {@code FORGEFLOW_JOB_USER=nobody}, its API tokens in a file only root can read
 * ({@code FORGEFLOW_API_TOKENS_FILE}): its shell jobs run as nobody, in a PID namespace, and find none of its secrets
 * in /proc or under its working directory.
 */
class NodeJobUserProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String ADMIN_TOKEN = secret("admin");
    static final String HUNTED_PASSWORD = secret("db");
    static final String HUNTED_METRICS = secret("metrics");
    static NodeProcess node;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(io.forgeflow.adapter.executor.JobIsolation.effectiveUid() == 0,
                "switching the job user needs a node running as root");
        Path dir = Files.createDirectories(Path.of("target", "node-secrets"));
        Path tokens = dir.resolve("api-tokens");
        Files.deleteIfExists(tokens);
        Files.createFile(tokens, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tokens, "admin:" + ADMIN_TOKEN + "\n");
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + "&password=" + HUNTED_PASSWORD;
        node = NodeProcess.start("job-user-node", "api,scheduler,worker", url, Map.of(
                "FORGEFLOW_API_TOKENS_FILE", tokens.toAbsolutePath().toString(),
                "FORGEFLOW_METRICS_TOKEN", HUNTED_METRICS,
                "FORGEFLOW_JOB_USER", "nobody",
                "FORGEFLOW_POLL_INTERVAL", "200ms"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
        Files.deleteIfExists(Path.of("target", "node-secrets", "api-tokens"));
    }

    @Test
    void itsJobsRunAsTheJobUserAndFindNoSecretOfTheNode() throws Exception {
        String output = NodeSecretsProcessIT.hunt(node, ADMIN_TOKEN);

        assertThat(output).doesNotContain(ADMIN_TOKEN).doesNotContain(HUNTED_PASSWORD).doesNotContain(HUNTED_METRICS);
    }

    @Test
    void itsJobsRunAsNobodyAndTheNodeSaysSo() throws Exception {
        HttpRequest.Builder create = HttpRequest.newBuilder(URI.create(node.url("/api/jobs")))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("name", "whoami",
                        "executor", "shell", "payload", Map.of("command", "id -un")))));
        String jobId = JSON.readTree(send(create).body()).get("id").asText();
        assertThat(NodeSecretsProcessIT.awaitSucceeded(node, ADMIN_TOKEN, jobId, Duration.ofSeconds(60))
                .get("output").asText()).isEqualTo("nobody\n");

        JsonNode nodes = NodeSecretsProcessIT.awaitNodes(node, ADMIN_TOKEN);
        assertThat(nodes.get(0).get("job_user").asText()).isEqualTo("nobody");
        assertThat(nodes.get(0).get("containment").asText()).isEqualTo("pid-namespace");
        assertThat(node.logText()).doesNotContain("shell jobs run as root");
    }
}
