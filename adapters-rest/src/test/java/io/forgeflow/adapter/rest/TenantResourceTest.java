package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.tenant.TenantInfo;
import io.forgeflow.domain.tenant.TenantSettings;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /api/tenants} over real HTTP, against TenantControls on the in-memory fakes: list and read tenants, set and
 * reset their weights and limits; every refused body or name answers a JSON error naming the field and changes
 * nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantResourceTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    static final List<String> TENANT_FIELDS = List.of("name", "weight", "max_running", "rate_limit", "pending",
            "running", "starts_in_window");
    static final String IDLE_DEFAULT = "{\"name\":\"default\",\"weight\":1,\"max_running\":null,\"rate_limit\":null,"
            + "\"pending\":0,\"running\":0,\"starts_in_window\":0}";

    Api api;
    RestTestApplication app;
    InMemoryStore store;

    @BeforeEach
    void reset() {
        app = APP.getApplication();
        store = app.store;
        store.clear();
        app.clock.set(Instant.parse("2026-03-01T12:00:00Z"));
        app.signal.reset();
        api = new Api(APP.getLocalPort());
    }

    /** A run-now job of {@code tenant}; its run is pending at once. */
    void submitIn(String tenant) {
        Api.Reply r = api.post("/api/jobs", "{\"name\": \"n\", \"executor\": \"shell\", \"tenant\": \"" + tenant + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    static String path(String name) {
        return "/api/tenants/" + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Nested
    class Reading {
        @Test
        void theListHoldsDefaultConfiguredTenantsAndTenantsWithJobsByNameWithEveryField() {
            submitIn("globex");
            submitIn("globex");
            store.tenants().configure("acme", true, false, false, new TenantSettings(3, null, null));

            Api.Reply r = api.get("/api/tenants");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Type")).startsWith("application/json");
            assertThat(r.fieldNames()).containsExactly("items");
            JsonNode tenants = r.json().get("items");
            assertThat(tenants).extracting(t -> t.get("name").asText()).containsExactly("acme", "default", "globex");
            for (JsonNode t : tenants) {
                assertThat(Api.JSON.convertValue(t, Map.class).keySet()).containsExactlyElementsOf(TENANT_FIELDS);
            }
            assertThat(tenants.get(0).get("weight").asInt()).isEqualTo(3);
            JsonNode globex = tenants.get(2);
            assertThat(globex.get("weight").asInt()).isEqualTo(1);
            assertThat(globex.get("pending").asLong()).isEqualTo(2);
            assertThat(globex.get("running").asLong()).isZero();
            assertThat(globex.get("max_running").isNull()).isTrue();
            assertThat(globex.get("rate_limit").isNull()).isTrue();
        }

        @Test
        void aListWithNoJobsHoldsTheDefaultTenant() {
            assertThat(api.get("/api/tenants").body()).isEqualTo("{\"items\":[" + IDLE_DEFAULT + "]}");
        }

        @Test
        void aWellFormedNameNobodyUsesIsAnIdleTenantOfWeightOneNotA404() {
            Api.Reply r = api.get("/api/tenants/nobody-yet");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(IDLE_DEFAULT.replace("default", "nobody-yet"));
            assertThat(api.get("/api/tenants").json().get("items")).extracting(t -> t.get("name").asText())
                    .containsExactly("default");
        }
    }

    @Nested
    class Settings {
        static final String ALL = "{\"weight\": 3, \"max_running\": 20, \"rate_limit\": {\"count\": 100, "
                + "\"per_seconds\": 60}}";

        @Test
        void putSetsTheWeightAndBothLimitsAndAnswersTheTenant() {
            Api.Reply r = api.put("/api/tenants/acme", ALL);

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.fieldNames()).containsExactlyElementsOf(TENANT_FIELDS);
            assertThat(r.body()).isEqualTo("{\"name\":\"acme\",\"weight\":3,\"max_running\":20,\"rate_limit\":"
                    + "{\"count\":100,\"per_seconds\":60},\"pending\":0,\"running\":0,\"starts_in_window\":0}");
            assertThat(store.tenants().get("acme").settings()).isEqualTo(new TenantSettings(3, 20,
                    new RateLimit(100, 60)));
            assertThat(app.signal.count()).as("workers are woken: waiting runs may start").isEqualTo(1);
            assertThat(api.get("/api/tenants/acme").json()).isEqualTo(r.json());
        }

        @Test
        void aFieldLeftOutKeepsItsValue() {
            api.put("/api/tenants/acme", ALL);

            Api.Reply onlyWeight = api.put("/api/tenants/acme", "{\"weight\": 5}");
            Api.Reply onlyMax = api.put("/api/tenants/acme", "{\"max_running\": 7}");
            Api.Reply onlyRate = api.put("/api/tenants/acme", "{\"rate_limit\": {\"count\": 1, \"per_seconds\": 1}}");

            assertThat(onlyWeight.json().get("max_running").asInt()).isEqualTo(20);
            assertThat(onlyWeight.json().get("rate_limit").get("count").asInt()).isEqualTo(100);
            assertThat(onlyMax.json().get("weight").asInt()).isEqualTo(5);
            assertThat(onlyRate.json().get("max_running").asInt()).isEqualTo(7);
            assertThat(store.tenants().get("acme").settings()).isEqualTo(new TenantSettings(5, 7, new RateLimit(1, 1)));
        }

        @Test
        void nullResetsTheWeightToOneAndClearsALimit() {
            api.put("/api/tenants/acme", ALL);

            Api.Reply noWeight = api.put("/api/tenants/acme", "{\"weight\": null}");
            assertThat(noWeight.status()).as(noWeight.body()).isEqualTo(200);
            assertThat(noWeight.json().get("weight").asInt()).isEqualTo(1);
            assertThat(noWeight.json().get("max_running").asInt()).isEqualTo(20);

            Api.Reply noLimits = api.put("/api/tenants/acme", "{\"max_running\": null, \"rate_limit\": null}");
            assertThat(noLimits.json().get("max_running").isNull()).isTrue();
            assertThat(noLimits.json().get("rate_limit").isNull()).isTrue();
            assertThat(store.tenants().get("acme").settings()).isEqualTo(TenantSettings.DEFAULT);
        }

        @Test
        void anEmptyObjectChangesNothing() {
            api.put("/api/tenants/acme", "{\"weight\": 4}");

            Api.Reply r = api.put("/api/tenants/acme", "{}");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("weight").asInt()).isEqualTo(4);
            assertThat(store.tenants().get("acme").settings()).isEqualTo(new TenantSettings(4, null, null));
        }

        @Test
        void theBoundsAreAccepted() {
            Api.Reply high = api.put("/api/tenants/t", "{\"weight\": 1000, \"max_running\": 100000, \"rate_limit\": "
                    + "{\"count\": 1000000, \"per_seconds\": 86400}}");
            Api.Reply low = api.put("/api/tenants/t", "{\"weight\": 1, \"max_running\": 1, \"rate_limit\": "
                    + "{\"per_seconds\": 1, \"count\": 1}}");

            assertThat(high.status()).as(high.body()).isEqualTo(200);
            assertThat(low.status()).as(low.body()).isEqualTo(200);
            assertThat(store.tenants().get("t").settings()).isEqualTo(new TenantSettings(1, 1, new RateLimit(1, 1)));
        }

        @Test
        void aConfiguredTenantWithoutJobsIsListed() {
            api.put("/api/tenants/later", "{\"weight\": 2}");

            assertThat(api.get("/api/tenants").json().get("items")).extracting(t -> t.get("name").asText())
                    .containsExactly("default", "later");
        }
    }

    /** A PUT body the API refuses, the status and the field it must name. */
    static Stream<Arguments> refusedBodies() {
        return Stream.of(
                Arguments.of("an array", "[]", 400, null),
                Arguments.of("a number", "2", 400, null),
                Arguments.of("null", "null", 400, null),
                Arguments.of("empty", "", 400, null),
                Arguments.of("truncated", "{\"weight\": ", 400, null),
                Arguments.of("a duplicate key", "{\"weight\": 1, \"weight\": 2}", 400, "weight"),
                Arguments.of("unknown field", "{\"maxRunning\": 2}", 422, "maxRunning"),
                Arguments.of("unknown field name", "{\"name\": \"other\"}", 422, "name"),
                Arguments.of("unknown field paused", "{\"paused\": true}", 422, "paused"),
                Arguments.of("a 5000-character key", "{\"" + "k".repeat(5000) + "\": 1}", 422, "k".repeat(60) + "…"),
                // weight
                Arguments.of("weight 0", "{\"weight\": 0}", 422, "weight"),
                Arguments.of("weight -1", "{\"weight\": -1}", 422, "weight"),
                Arguments.of("weight 1001", "{\"weight\": 1001}", 422, "weight"),
                Arguments.of("weight a string", "{\"weight\": \"3\"}", 422, "weight"),
                Arguments.of("weight a fraction", "{\"weight\": 1.5}", 422, "weight"),
                Arguments.of("weight 2.0", "{\"weight\": 2.0}", 422, "weight"),
                Arguments.of("weight true", "{\"weight\": true}", 422, "weight"),
                Arguments.of("weight an object", "{\"weight\": {}}", 422, "weight"),
                Arguments.of("weight 2^31", "{\"weight\": 2147483648}", 422, "weight"),
                Arguments.of("weight 10^20", "{\"weight\": 100000000000000000000}", 422, "weight"),
                Arguments.of("weight 1e309", "{\"weight\": 1e309}", 422, "weight"),
                // max_running
                Arguments.of("max_running 0", "{\"max_running\": 0}", 422, "max_running"),
                Arguments.of("max_running 100001", "{\"max_running\": 100001}", 422, "max_running"),
                Arguments.of("max_running a string", "{\"max_running\": \"2\"}", 422, "max_running"),
                Arguments.of("max_running an array", "{\"max_running\": [2]}", 422, "max_running"),
                // rate_limit
                Arguments.of("rate_limit a string", "{\"rate_limit\": \"100/60\"}", 422, "rate_limit"),
                Arguments.of("rate_limit empty", "{\"rate_limit\": {}}", 422, "rate_limit.count"),
                Arguments.of("rate_limit without per_seconds", "{\"rate_limit\": {\"count\": 100}}", 422,
                        "rate_limit.per_seconds"),
                Arguments.of("rate_limit with an unknown key", "{\"rate_limit\": {\"count\": 1, \"per_seconds\": 1, "
                        + "\"burst\": 5}}", 422, "rate_limit.burst"),
                Arguments.of("rate_limit.count null", "{\"rate_limit\": {\"count\": null, \"per_seconds\": 60}}", 422,
                        "rate_limit.count"),
                Arguments.of("rate_limit.count 1000001", "{\"rate_limit\": {\"count\": 1000001, \"per_seconds\": 60}}",
                        422, "rate_limit.count"),
                Arguments.of("rate_limit.per_seconds 86401", "{\"rate_limit\": {\"count\": 5, \"per_seconds\": 86401}}",
                        422, "rate_limit.per_seconds"),
                Arguments.of("a good weight beside a bad max_running", "{\"weight\": 3, \"max_running\": -5}", 422,
                        "max_running"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedBodies")
    void aRefusedBodyAnswersAJsonErrorNamingTheFieldAndChangesNothing(String name, String body, int status,
                                                                      String field) {
        api.put("/api/tenants/acme", "{\"weight\": 7, \"max_running\": 7, \"rate_limit\": {\"count\": 9, "
                + "\"per_seconds\": 9}}");
        List<TenantInfo> before = store.tenants().list();
        app.signal.reset();

        Api.Reply r = api.put("/api/tenants/acme", body);

        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/json");
        assertThat(r.json().get("error").asText()).isNotBlank();
        assertThat(r.json().get("code").asText()).isEqualTo(status == 422 ? "validation_failed" : "bad_request");
        if (field == null) {
            assertThat(r.json().has("field")).as(r.body()).isFalse();
        } else {
            assertThat(r.json().get("field").asText()).as(r.body()).isEqualTo(field);
        }
        assertThat(r.body()).doesNotContain("Exception", "io.forgeflow", ".java");
        assertThat(store.tenants().list()).isEqualTo(before);
        assertThat(app.signal.count()).isZero();
    }

    @Test
    void theErrorsSayWhatIsExpected() {
        assertThat(api.put("/api/tenants/t", "{\"weight\": \"3\"}").json().get("error").asText())
                .isEqualTo("weight must be a whole number from 1 to 1000, or null for 1, not a string");
        assertThat(api.put("/api/tenants/t", "{\"weight\": 0}").json().get("error").asText())
                .isEqualTo("weight must be between 1 and 1000, or null for 1, was 0");
        assertThat(api.put("/api/tenants/t", "{\"max_running\": 0}").json().get("error").asText())
                .isEqualTo("max_running must be between 1 and 100000, or null for no limit, was 0");
        assertThat(api.put("/api/tenants/t", "{\"share\": 2}").json().get("error").asText())
                .startsWith("unknown field 'share': a tenant takes weight").contains("max_running", "rate_limit");
        assertThat(api.put("/api/tenants/t", "{\"rate_limit\": 100}").json().get("error").asText())
                .contains("{\"count\": 100, \"per_seconds\": 60}").contains("null to clear it");
        assertThat(api.put("/api/tenants/t", "[]").json().get("error").asText())
                .contains("must be a JSON object").contains("weight");
    }

    static Stream<Arguments> badNames() {
        return Stream.of(
                Arguments.of("a space", "a b"),
                Arguments.of("upper case", "Acme"),
                Arguments.of("an umlaut", "zürich"),
                Arguments.of("an emoji", "🚀"),
                Arguments.of("a star", "*"),
                Arguments.of("a colon", "a:b"),
                Arguments.of("a quote", "a'b"),
                Arguments.of("64 characters", "t".repeat(64)),
                Arguments.of("5000 characters", "t".repeat(5000)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badNames")
    void aMalformedTenantNameInThePathIs422NamingNameOnEveryRoute(String label, String name) {
        api.put("/api/tenants/acme", "{\"weight\": 2}");
        List<TenantInfo> before = store.tenants().list();
        app.signal.reset();
        String path = path(name);

        for (Api.Reply r : List.of(api.get(path), api.put(path, "{\"weight\": 2}"))) {
            assertThat(r.status()).as(r.body()).isEqualTo(422);
            assertThat(r.json().get("code").asText()).isEqualTo("validation_failed");
            assertThat(r.json().get("field").asText()).isEqualTo("name");
            assertThat(r.json().get("error").asText()).contains("is not a tenant name")
                    .contains("lower-case letters").doesNotContain("t".repeat(71));
        }
        assertThat(store.tenants().list()).isEqualTo(before);
        assertThat(app.signal.count()).isZero();
    }

    @Test
    void aSixtyThreeCharacterNameIsAccepted() {
        String name = "t".repeat(63);

        assertThat(api.put(path(name), "{\"weight\": 2}").status()).isEqualTo(200);
        assertThat(api.get(path(name)).json().get("weight").asInt()).isEqualTo(2);
    }

    @Test
    void otherMethodsAndActionsAreNotRoutes() {
        assertThat(api.method("DELETE", "/api/tenants/acme").status()).isEqualTo(405);
        assertThat(api.post("/api/tenants/acme").status()).isEqualTo(405);
        assertThat(api.post("/api/tenants/acme/pause").status()).isEqualTo(404);
        assertThat(api.put("/api/tenants", "{}").status()).isEqualTo(405);
        assertThat(store.tenants().list()).extracting(TenantInfo::name).containsExactly("default");
    }
}
