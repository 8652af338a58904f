package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.domain.job.Job;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets in an http payload's headers are shown as "***" wherever the API shows the job, while the stored payload
 * keeps them for the executor, and idempotent replays are compared with the real values.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PayloadRedactionTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    static final String SECRET_JOB = "{\"name\": \"hook\", \"executor\": \"http\", \"idempotency_key\": \"hook-1\", "
            + "\"payload\": {\"url\": \"https://example.com/hook\", \"headers\": {"
            + "\"Authorization\": \"Bearer live-secret\", \"X-Api-Key\": \"k-123\", \"Cookie\": \"session=abc\", "
            + "\"Proxy-Authorization\": \"Basic cHJveHk=\", \"X-Github-Token\": \"ghp_x\", \"x-client-secret\": \"cs\", "
            + "\"Content-Type\": \"application/json\", \"X-Request-Source\": \"forgeflow\"}}}";

    Api api;
    RestTestApplication app;

    @BeforeEach
    void reset() {
        app = APP.getApplication();
        app.store.clear();
        api = new Api(APP.getLocalPort());
    }

    @Test
    void secretHeadersAreMaskedInEveryAnswerButKeptInTheStore() {
        Api.Reply created = api.post("/api/jobs", SECRET_JOB);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().get("id").asText();

        for (JsonNode shown : new JsonNode[]{created.json(), api.get("/api/jobs/" + id).json(),
                api.get("/api/jobs").json().get("items").get(0)}) {
            JsonNode headers = shown.get("payload").get("headers");
            assertThat(headers.get("Authorization").asText()).isEqualTo("***");
            assertThat(headers.get("X-Api-Key").asText()).isEqualTo("***");
            assertThat(headers.get("Cookie").asText()).isEqualTo("***");
            assertThat(headers.get("Proxy-Authorization").asText()).isEqualTo("***");
            assertThat(headers.get("X-Github-Token").asText()).isEqualTo("***");
            assertThat(headers.get("x-client-secret").asText()).isEqualTo("***");
            assertThat(headers.get("Content-Type").asText()).isEqualTo("application/json");
            assertThat(headers.get("X-Request-Source").asText()).isEqualTo("forgeflow");
            assertThat(shown.get("payload").get("url").asText()).isEqualTo("https://example.com/hook");
            assertThat(shown.toString()).doesNotContain("live-secret", "k-123", "session=abc", "ghp_x");
        }

        Job stored = app.store.allJobs().get(0);
        @SuppressWarnings("unchecked")
        Map<String, Object> headers = (Map<String, Object>) stored.spec().payload().get("headers");
        assertThat(headers).containsEntry("Authorization", "Bearer live-secret").containsEntry("X-Api-Key", "k-123");
    }

    @Test
    void anIdempotentReplayIsComparedWithTheRealSecretsNotTheMaskedOnes() {
        assertThat(api.post("/api/jobs", SECRET_JOB).status()).isEqualTo(201);

        Api.Reply replay = api.post("/api/jobs", SECRET_JOB);
        assertThat(replay.status()).as("the same body, real secret: the existing job").isEqualTo(200);
        assertThat(replay.json().get("payload").get("headers").get("Authorization").asText()).isEqualTo("***");

        Api.Reply masked = api.post("/api/jobs", SECRET_JOB.replace("Bearer live-secret", "***"));
        assertThat(masked.status()).as("the body as the API showed it is another body").isEqualTo(409);
        assertThat(masked.body()).doesNotContain("live-secret");

        Api.Reply otherSecret = api.post("/api/jobs", SECRET_JOB.replace("live-secret", "other-secret"));
        assertThat(otherSecret.status()).isEqualTo(409);
        assertThat(app.store.allJobs()).hasSize(1);
    }
}
