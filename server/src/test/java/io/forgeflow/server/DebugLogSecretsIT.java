package io.forgeflow.server;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A node logging at DEBUG (Jetty, Jersey and ours into one file) never writes an Authorization header's token. */
@ExtendWith(DropwizardExtensionsSupport.class)
class DebugLogSecretsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("debug-log-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "debug-node"));

    static final String ADMIN = "debug-admin-token-5e1d0c77";
    static final String WRONG = "wrong-token-9a8b7c6d5e";
    static final Path LOG = Path.of("target", "debug-log", "node.log");
    static final Path REQUESTS = Path.of("target", "debug-log", "requests.log");

    @Test
    void noTokenReachesTheLogsAtDebug() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (String token : new String[] {ADMIN, WRONG}) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + APP.getLocalPort() + "/api/stats")).header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isIn(200, 401);
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + "/api/jobs"))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"x\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        String log = Files.readString(LOG);
        assertThat(log).as("the node logged at DEBUG").contains("DEBUG");
        assertThat(log).doesNotContain(ADMIN).doesNotContain(WRONG);
        if (Files.exists(REQUESTS)) {
            assertThat(Files.readString(REQUESTS)).doesNotContain(ADMIN).doesNotContain(WRONG);
        }
    }
}
