package io.forgeflow.adapter.rest;

import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Origin and Host rules over real HTTP, on a tokenless server, one with allowed origins and hosts, and one with
 * tokens: what a browser page sends is refused before anything reads the body, and no job is created; what curl,
 * the CLI and the client send keeps working.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class BrowserDefenceHttpTest {
    static final DropwizardAppExtension<RestTestConfiguration> OPEN = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));
    static final DropwizardAppExtension<RestTestConfiguration> ALLOWING = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-allowed-test.yml"));
    static final DropwizardAppExtension<RestTestConfiguration> TOKENS = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-auth-test.yml"));

    static final String JOB = "{\"name\": \"page\", \"executor\": \"shell\", \"payload\": {\"command\": \"touch /tmp/x\"}}";

    static RawHttp.Reply send(DropwizardAppExtension<RestTestConfiguration> app, String method, String path,
                              String body, String... headers) throws Exception {
        Map<String, String> h = new LinkedHashMap<>();
        for (int i = 0; i < headers.length; i += 2) {
            h.put(headers[i], headers[i + 1]);
        }
        return new RawHttp(app.getLocalPort()).send(new RawHttp.Request(method, path, h,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8), false));
    }

    static int jobs(DropwizardAppExtension<RestTestConfiguration> app) {
        return ((RestTestApplication) app.getApplication()).store.jobs().list(null, 500, null).items().size();
    }

    @Test
    void aCrossSiteFormPostIsRefusedAndCreatesNoJob() throws Exception {
        int before = jobs(OPEN);
        RawHttp.Reply r = send(OPEN, "POST", "/api/jobs", JOB, "Content-Type", "application/x-www-form-urlencoded",
                "Origin", "http://127.0.0.1:9", "Sec-Fetch-Site", "same-site");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.header("content-type")).startsWith("application/json");
        assertThat(Api.JSON.readTree(r.body()).get("error").asText()).contains("Origin header")
                .contains("FORGEFLOW_ALLOWED_ORIGINS");
        assertThat(jobs(OPEN)).isEqualTo(before);
    }

    @Test
    void secFetchSiteCrossSiteIsRefusedEvenWithoutOrigin() throws Exception {
        int before = jobs(OPEN);
        RawHttp.Reply r = send(OPEN, "POST", "/api/jobs", JOB, "Content-Type", "text/plain",
                "Sec-Fetch-Site", "cross-site");
        assertThat(r.status()).isEqualTo(403);
        assertThat(Api.JSON.readTree(r.body()).get("error").asText()).contains("Sec-Fetch-Site");
        assertThat(jobs(OPEN)).isEqualTo(before);
    }

    @Test
    void everyStateChangingMethodChecksTheOrigin() throws Exception {
        for (String method : new String[] {"PUT", "PATCH", "DELETE"}) {
            RawHttp.Reply r = send(OPEN, method, "/api/queues/reports", "{}", "Content-Type", "application/json",
                    "Origin", "https://evil.example");
            assertThat(r.status()).as(method).isEqualTo(403);
        }
        assertThat(send(OPEN, "POST", "/api/runs/x/cancel", null, "Origin", "https://evil.example").status())
                .isEqualTo(403);
    }

    @Test
    void curlStylePostsWithoutOriginStillWork() throws Exception {
        RawHttp.Reply r = send(OPEN, "POST", "/api/jobs", JOB, "Content-Type", "application/x-www-form-urlencoded");
        assertThat(r.status()).isEqualTo(201);
    }

    @Test
    void theNodesOwnOriginMayPost() throws Exception {
        int port = OPEN.getLocalPort();
        assertThat(send(OPEN, "POST", "/api/jobs", JOB, "Content-Type", "application/json",
                "Origin", "http://127.0.0.1:" + port, "Sec-Fetch-Site", "same-origin").status()).isEqualTo(201);
        assertThat(send(OPEN, "POST", "/api/jobs", JOB, "Content-Type", "application/json", "Host", "localhost:" + port,
                "Origin", "http://localhost:" + port).status()).isEqualTo(201);
    }

    @Test
    void aForeignHostIsRefusedForReadsAndWritesOnATokenlessNode() throws Exception {
        int before = jobs(OPEN);
        String rebound = "rebind.evil.example:" + OPEN.getLocalPort();
        RawHttp.Reply read = send(OPEN, "GET", "/api/runs", null, "Host", rebound);
        assertThat(read.status()).isEqualTo(421);
        assertThat(read.body()).doesNotContain("items");
        assertThat(Api.JSON.readTree(read.body()).get("error").asText()).contains("Host header")
                .contains("FORGEFLOW_ALLOWED_HOSTS");
        assertThat(send(OPEN, "POST", "/api/jobs", JOB, "Content-Type", "application/json", "Host", rebound,
                "Origin", "http://" + rebound).status()).isEqualTo(421);
        assertThat(send(OPEN, "GET", "/", null, "Host", rebound).status()).isEqualTo(421);
        assertThat(send(OPEN, "GET", "/metrics", null, "Host", rebound).status()).isEqualTo(421);
        assertThat(jobs(OPEN)).isEqualTo(before);
        assertThat(send(OPEN, "GET", "/api/runs", null, "Host", "localhost:" + OPEN.getLocalPort()).status())
                .isEqualTo(200);
        assertThat(send(OPEN, "GET", "/api/runs", null, "Host", "[::1]:" + OPEN.getLocalPort()).status())
                .isEqualTo(200);
    }

    @Test
    void listedOriginsAndHostsAreAllowed() throws Exception {
        assertThat(send(ALLOWING, "POST", "/api/jobs", JOB, "Content-Type", "application/json",
                "Origin", "https://ops.example.com").status()).isEqualTo(201);
        assertThat(send(ALLOWING, "POST", "/api/jobs", JOB, "Content-Type", "application/json",
                "Origin", "http://localhost:3000").status()).isEqualTo(201);
        assertThat(send(ALLOWING, "POST", "/api/jobs", JOB, "Content-Type", "application/json",
                "Origin", "https://evil.example").status()).isEqualTo(403);
        assertThat(send(ALLOWING, "GET", "/api/runs", null, "Host", "forgeflow.internal").status()).isEqualTo(200);
        assertThat(send(ALLOWING, "GET", "/api/runs", null, "Host", "other.internal").status()).isEqualTo(421);
    }

    @Test
    void withTokensAnyHostIsServedButForeignOriginsStillCannotWrite() throws Exception {
        String auth = "Bearer " + HostileRequestsTest.ADMIN;
        assertThat(send(TOKENS, "GET", "/api/runs", null, "Host", "forgeflow.example.com",
                "Authorization", auth).status()).isEqualTo(200);
        int before = jobs(TOKENS);
        RawHttp.Reply r = send(TOKENS, "POST", "/api/jobs", JOB, "Content-Type", "application/json",
                "Authorization", auth, "Origin", "https://evil.example");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.body()).contains("Origin header");
        assertThat(jobs(TOKENS)).isEqualTo(before);
    }
}
