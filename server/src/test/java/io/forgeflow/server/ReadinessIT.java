package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.PostgresUrls;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /readyz} follows the database: a node whose database connection goes through a TCP proxy answers 503 with the
 * reason while the proxy is down, and 200 again once it is back, without a restart. {@code /healthz} stays 200.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReadinessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final TcpProxy PROXY = startProxy();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", ReadinessIT::proxiedUrl),
            ConfigOverride.config("forgeflow.workerId", "readiness-node"));

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final ObjectMapper json = new ObjectMapper();

    @AfterAll
    static void stopProxy() {
        PROXY.close();
    }

    @Test
    void readyzIs503WithTheReasonWhileTheDatabaseIsUnreachableAnd200OnceItIsBack() throws Exception {
        assertThat(get("/readyz").statusCode()).isEqualTo(200);

        PROXY.stop();
        HttpResponse<String> down = await("/readyz", 503);
        JsonNode body = json.readTree(down.body());
        assertThat(body.get("error").asText()).as("anyone gets a short reason, never the driver's text")
                .isEqualTo("database unreachable");
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        HttpResponse<String> details = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + APP.getAdminPort() + "/readyz")).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(details.statusCode()).isEqualTo(503);
        JsonNode operator = json.readTree(details.body());
        assertThat(operator.get("status").asText()).isEqualTo("not ready");
        assertThat(operator.get("error").asText()).as("operators get the details on the admin port")
                .startsWith("database unreachable: ").hasSizeGreaterThan("database unreachable: ".length());

        PROXY.start();
        await("/readyz", 200);
    }

    HttpResponse<String> await(String path, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        HttpResponse<String> last = null;
        while (System.nanoTime() < deadline) {
            last = get(path);
            if (last.statusCode() == status) {
                return last;
            }
            TimeUnit.MILLISECONDS.sleep(200); // polling a condition with a deadline
        }
        throw new AssertionError(path + " never answered " + status + "; last: " + (last == null ? null
                : last.statusCode() + " " + last.body()));
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static String proxiedUrl() {
        URI db = URI.create(pg.jdbcUrl().substring("jdbc:".length()));
        String url = "jdbc:postgresql://127.0.0.1:" + PROXY.port() + db.getRawPath()
                + "?user=" + pg.user() + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        return url;
    }

    private static TcpProxy startProxy() {
        try {
            URI db = URI.create(PostgresUrls.parse(pg.jdbcUrl()).jdbcUrl().substring("jdbc:".length()));
            TcpProxy proxy = new TcpProxy(db.getHost(), db.getPort() < 0 ? 5432 : db.getPort());
            proxy.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
