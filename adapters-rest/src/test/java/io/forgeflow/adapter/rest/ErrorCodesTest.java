package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every error carries a stable {@code code} beside {@code error} (and {@code field} where one is at fault). */
@ExtendWith(DropwizardExtensionsSupport.class)
class ErrorCodesTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));
    static final String JOB = "{\"name\": \"coded\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}";
    static final String UNKNOWN_ID = "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b";

    Api api;

    @BeforeEach
    void reset() {
        ((RestTestApplication) APP.getApplication()).store.clear();
        ((RestTestApplication) APP.getApplication()).notReadyBecause.set(null);
        api = new Api(APP.getLocalPort());
    }

    static JsonNode coded(Api.Reply r, int status, String code) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        JsonNode body = r.json();
        assertThat(body.get("error").asText()).isNotBlank();
        assertThat(body.get("code").asText()).as(r.body()).isEqualTo(code);
        return body;
    }

    RawHttp.Reply raw(String method, String path, Map<String, String> headers, byte[] body) throws Exception {
        return new RawHttp(APP.getLocalPort()).send(new RawHttp.Request(method, path, headers, body, false));
    }

    static JsonNode coded(RawHttp.Reply r, int status, String code) throws Exception {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        JsonNode body = Api.JSON.readTree(r.body());
        assertThat(body.get("error").asText()).isNotBlank();
        assertThat(body.get("code").asText()).as(r.body()).isEqualTo(code);
        return body;
    }

    @Test
    void aFieldThatFailsValidationIsValidationFailedNamingTheField() {
        JsonNode body = coded(api.post("/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", \"priority\": 12}"),
                422, "validation_failed");
        assertThat(body.get("field").asText()).isEqualTo("priority");
    }

    @Test
    void aMalformedQueryOrBodyIsBadRequest() {
        assertThat(coded(api.get("/api/jobs?limit=many"), 400, "bad_request").get("field").asText()).isEqualTo("limit");
        coded(api.post("/api/jobs", "{not json"), 400, "bad_request");
    }

    @Test
    void anUnknownIdOrRouteIsNotFound() {
        coded(api.get("/api/jobs/" + UNKNOWN_ID), 404, "not_found");
        coded(api.get("/api/runs/not-an-id"), 404, "not_found");
        coded(api.get("/api/nothing-here"), 404, "not_found");
    }

    @Test
    void aWrongMethodIsMethodNotAllowed() {
        coded(api.method("DELETE", "/api/stats"), 405, "method_not_allowed");
    }

    @Test
    void conflictsSayWhichKind() {
        String id = api.post("/api/jobs", JOB).json().get("id").asText();
        assertThat(api.post("/api/jobs/" + id + "/cancel").status()).isEqualTo(200);
        coded(api.post("/api/jobs/" + id + "/resume"), 409, "conflict");

        String keyed = "{\"name\": \"a\", \"executor\": \"shell\", \"idempotency_key\": \"k-1\", \"payload\": {\"command\": \"true\"}}";
        assertThat(api.post("/api/jobs", keyed).status()).isEqualTo(201);
        JsonNode reused = coded(api.post("/api/jobs", keyed.replace("\"a\"", "\"b\"")), 409, "idempotency_conflict");
        assertThat(reused.get("field").asText()).isEqualTo("idempotency_key");

        String unique = "{\"name\": \"u\", \"executor\": \"shell\", \"unique_key\": \"u-1\", \"payload\": {\"command\": \"true\"}}";
        assertThat(api.post("/api/jobs", unique).status()).isEqualTo(201);
        coded(api.post("/api/jobs", unique), 409, "unique_conflict");
    }

    @Test
    void aBodyOverTheLimitIsPayloadTooLarge() throws Exception {
        byte[] big = ("{\"name\": \"" + "x".repeat(1_100_000) + "\"}").getBytes(StandardCharsets.UTF_8);
        coded(raw("POST", "/api/jobs", Map.of("Content-Type", "application/json"), big), 413, "payload_too_large");
    }

    @Test
    void anotherContentTypeIsUnsupportedMediaType() {
        coded(api.post("/api/jobs", "name=x", "text/plain"), 415, "unsupported_media_type");
    }

    @Test
    void aForeignOriginIsForbiddenAndAForeignHostMisdirected() throws Exception {
        coded(raw("POST", "/api/jobs", Map.of("Origin", "https://evil.example", "Content-Type", "application/json"),
                JOB.getBytes(StandardCharsets.UTF_8)), 403, "forbidden");
        coded(raw("GET", "/api/jobs", Map.of("Host", "rebound.example"), null), 421, "misdirected_request");
    }

    @Test
    void aMalformedPathThatJettyRefusesItselfIsBadRequest() throws Exception {
        coded(raw("GET", "/api/jobs/%zz", Map.of(), null), 400, "bad_request");
    }

    @Test
    void aFailureOfTheServerIsInternalErrorAndAnUnreadyNodeUnavailable() {
        coded(api.get("/test/boom"), 500, "internal_error");
        ((RestTestApplication) APP.getApplication()).notReadyBecause.set("database unreachable");
        coded(api.get("/readyz"), 503, "unavailable");
    }

    @Test
    void everyCodeOfAStatusIsStable() {
        assertThat(ErrorCodes.of(400)).isEqualTo("bad_request");
        assertThat(ErrorCodes.of(401)).isEqualTo("unauthorized");
        assertThat(ErrorCodes.of(406)).isEqualTo("not_acceptable");
        assertThat(ErrorCodes.of(414)).isEqualTo("uri_too_long");
        assertThat(ErrorCodes.of(418)).isEqualTo("bad_request");
        assertThat(ErrorCodes.of(429)).isEqualTo("rate_limited");
        assertThat(ErrorCodes.of(431)).isEqualTo("headers_too_large");
        assertThat(ErrorCodes.of(502)).isEqualTo("internal_error");
    }
}
