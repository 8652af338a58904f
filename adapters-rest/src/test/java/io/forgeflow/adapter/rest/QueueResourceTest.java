package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /api/queues} over real HTTP, against QueueControls on the in-memory fakes: list and read queues, set and
 * clear their limits, pause and resume them; every refused body answers a JSON error naming the field and changes
 * nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class QueueResourceTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    static final List<String> QUEUE_FIELDS = List.of("name", "paused", "max_running", "rate_limit", "pending", "due",
            "running", "lag_seconds", "starts_in_window", "tenant");
    static final String START = "2026-03-01T12:00:00Z";

    Api api;
    RestTestApplication app;
    InMemoryStore store;
    MutableClock clock;

    @BeforeEach
    void reset() {
        app = APP.getApplication();
        store = app.store;
        clock = app.clock;
        store.clear();
        clock.set(Instant.parse(START));
        app.signal.reset();
        api = new Api(APP.getLocalPort());
    }

    /** A run-now job in {@code queue}; its run is due at once. */
    String submitIn(String queue) {
        Api.Reply r = api.post("/api/jobs", "{\"name\": \"n\", \"executor\": \"shell\", \"queue\": \"" + queue + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    static String path(String name) {
        return "/api/queues/" + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Nested
    class Reading {
        @Test
        void theListHoldsEveryKnownQueueByNameWithEveryField() {
            submitIn("reports");
            submitIn("reports");
            store.queues().configure("default", "archive", true, false, new QueueLimits(1, null));

            Api.Reply r = api.get("/api/queues");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Type")).startsWith("application/json");
            assertThat(r.fieldNames()).as("items as every list, queues its deprecated alias").containsExactly("items", "queues");
            JsonNode queues = r.json().get("items");
            assertThat(r.json().get("queues")).isEqualTo(queues);
            assertThat(queues).extracting(q -> q.get("name").asText()).containsExactly("archive", "default", "reports");
            for (JsonNode q : queues) {
                assertThat(Api.JSON.convertValue(q, Map.class).keySet()).containsExactlyElementsOf(QUEUE_FIELDS);
            }
            JsonNode reports = queues.get(2);
            assertThat(reports.get("pending").asLong()).isEqualTo(2);
            assertThat(reports.get("due").asLong()).isEqualTo(2);
            assertThat(reports.get("running").asLong()).isZero();
            assertThat(reports.get("paused").asBoolean()).isFalse();
            assertThat(reports.get("max_running").isNull()).isTrue();
            assertThat(reports.get("rate_limit").isNull()).isTrue();
            assertThat(queues.get(0).get("max_running").asInt()).isEqualTo(1);
        }

        @Test
        void aQueueShowsItsDepthRunningCountLagAndRateWindow() {
            submitIn("reports");
            submitIn("reports");
            store.queues().configure("default", "reports", false, true, new QueueLimits(null, new RateLimit(10, 60)));
            clock.advance(Duration.ofMillis(2_500));
            List<Run> claimed = store.queue().claim("w1", Set.of("shell"), QueueSelection.ALL, 1, Duration.ofSeconds(30));
            assertThat(claimed).hasSize(1);
            clock.advance(Duration.ofMillis(1_234));

            Api.Reply r = api.get("/api/queues/reports");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.fieldNames()).containsExactlyElementsOf(QUEUE_FIELDS);
            JsonNode q = r.json();
            assertThat(q.get("name").asText()).isEqualTo("reports");
            assertThat(q.get("pending").asLong()).isEqualTo(1);
            assertThat(q.get("due").asLong()).isEqualTo(1);
            assertThat(q.get("running").asLong()).isEqualTo(1);
            assertThat(q.get("lag_seconds").asDouble()).as("seconds, to the hundredth").isEqualTo(3.73);
            assertThat(q.get("starts_in_window").asLong()).isEqualTo(1);
            assertThat(q.get("rate_limit").toString()).isEqualTo("{\"count\":10,\"per_seconds\":60}");
        }

        @Test
        void aWellFormedNameNobodyUsesIsAnEmptyOpenQueueNotA404() {
            Api.Reply r = api.get("/api/queues/nobody-yet");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"name\":\"nobody-yet\",\"paused\":false,\"max_running\":null,"
                    + "\"rate_limit\":null,\"pending\":0,\"due\":0,\"running\":0,\"lag_seconds\":0.0,"
                    + "\"starts_in_window\":0,\"tenant\":\"default\"}");
            assertThat(api.get("/api/queues").json().get("items")).extracting(q -> q.get("name").asText())
                    .containsExactly("default");
        }

        @Test
        void aListWithNoJobsHoldsTheDefaultQueue() {
            String queue = "{\"name\":\"default\",\"paused\":false,\"max_running\":null,\"rate_limit\":null,"
                    + "\"pending\":0,\"due\":0,\"running\":0,\"lag_seconds\":0.0,\"starts_in_window\":0,\"tenant\":\"default\"}";
            assertThat(api.get("/api/queues").body()).isEqualTo("{\"items\":[" + queue + "],\"queues\":[" + queue + "]}");
        }
    }

    @Nested
    class Limits {
        @Test
        void putSetsBothLimitsAndAnswersTheQueue() {
            Api.Reply r = api.put("/api/queues/reports", "{\"max_running\": 2, \"rate_limit\": {\"count\": 100, "
                    + "\"per_seconds\": 60}}");

            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.fieldNames()).containsExactlyElementsOf(QUEUE_FIELDS);
            assertThat(r.json().get("max_running").asInt()).isEqualTo(2);
            assertThat(r.json().get("rate_limit").get("count").asInt()).isEqualTo(100);
            assertThat(r.json().get("rate_limit").get("per_seconds").asInt()).isEqualTo(60);
            assertThat(store.queues().get("default", "reports").limits()).isEqualTo(new QueueLimits(2, new RateLimit(100, 60)));
            assertThat(app.signal.count()).as("workers are woken: waiting runs may start").isEqualTo(1);
            assertThat(api.get("/api/queues/reports").json()).isEqualTo(r.json());
        }

        @Test
        void aFieldLeftOutKeepsItsValue() {
            api.put("/api/queues/reports", "{\"max_running\": 2, \"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}");

            Api.Reply onlyMax = api.put("/api/queues/reports", "{\"max_running\": 5}");
            Api.Reply onlyRate = api.put("/api/queues/reports", "{\"rate_limit\": {\"count\": 1, \"per_seconds\": 1}}");

            assertThat(onlyMax.json().get("rate_limit").get("count").asInt()).isEqualTo(100);
            assertThat(onlyMax.json().get("max_running").asInt()).isEqualTo(5);
            assertThat(onlyRate.json().get("max_running").asInt()).isEqualTo(5);
            assertThat(store.queues().get("default", "reports").limits()).isEqualTo(new QueueLimits(5, new RateLimit(1, 1)));
        }

        @Test
        void nullClearsALimit() {
            api.put("/api/queues/reports", "{\"max_running\": 2, \"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}");

            Api.Reply noMax = api.put("/api/queues/reports", "{\"max_running\": null}");
            assertThat(noMax.status()).isEqualTo(200);
            assertThat(noMax.json().get("max_running").isNull()).isTrue();
            assertThat(noMax.json().get("rate_limit").isNull()).isFalse();

            Api.Reply noRate = api.put("/api/queues/reports", "{\"rate_limit\": null}");
            assertThat(noRate.json().get("rate_limit").isNull()).isTrue();
            assertThat(store.queues().get("default", "reports").limits()).isEqualTo(QueueLimits.NONE);
        }

        @Test
        void anEmptyObjectChangesNothing() {
            api.put("/api/queues/reports", "{\"max_running\": 3}");

            Api.Reply r = api.put("/api/queues/reports", "{}");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("max_running").asInt()).isEqualTo(3);
            assertThat(store.queues().get("default", "reports").limits()).isEqualTo(new QueueLimits(3, null));
        }

        @Test
        void theBoundsAreAccepted() {
            Api.Reply high = api.put("/api/queues/q", "{\"max_running\": 100000, \"rate_limit\": {\"count\": 1000000, "
                    + "\"per_seconds\": 86400}}");
            Api.Reply low = api.put("/api/queues/q", "{\"max_running\": 1, \"rate_limit\": {\"per_seconds\": 1, "
                    + "\"count\": 1}}");

            assertThat(high.status()).as(high.body()).isEqualTo(200);
            assertThat(low.status()).as(low.body()).isEqualTo(200);
            assertThat(store.queues().get("default", "q").limits()).isEqualTo(new QueueLimits(1, new RateLimit(1, 1)));
        }

        @Test
        void aBodyWithoutContentTypeOrAsCurlsFormDefaultIsReadAsJson() throws Exception {
            RawHttp raw = new RawHttp(APP.getLocalPort());
            RawHttp.Reply form = raw.send(new RawHttp.Request("PUT", "/api/queues/reports",
                    Map.of("Content-Type", "application/x-www-form-urlencoded"),
                    "{\"max_running\": 4}".getBytes(StandardCharsets.UTF_8), false));
            RawHttp.Reply none = raw.send(new RawHttp.Request("PUT", "/api/queues/webhooks", Map.of(),
                    "{\"max_running\": 5}".getBytes(StandardCharsets.UTF_8), false));

            assertThat(form.status()).as(form.body()).isEqualTo(200);
            assertThat(none.status()).as(none.body()).isEqualTo(200);
            assertThat(store.queues().get("default", "reports").limits().maxRunning()).isEqualTo(4);
            assertThat(store.queues().get("default", "webhooks").limits().maxRunning()).isEqualTo(5);
        }
    }

    @Nested
    class PauseAndResume {
        @Test
        void pauseAndResumeAnswerTheQueue() {
            submitIn("reports");

            Api.Reply paused = api.post("/api/queues/reports/pause");

            assertThat(paused.status()).as(paused.body()).isEqualTo(200);
            assertThat(paused.fieldNames()).containsExactlyElementsOf(QUEUE_FIELDS);
            assertThat(paused.json().get("paused").asBoolean()).isTrue();
            assertThat(paused.json().get("pending").asLong()).isEqualTo(1);
            assertThat(store.queue().claim("w1", Set.of("shell"), QueueSelection.ALL, 10, Duration.ofSeconds(30)))
                    .as("no run of a paused queue starts").isEmpty();
            app.signal.reset();

            Api.Reply resumed = api.post("/api/queues/reports/resume");

            assertThat(resumed.status()).isEqualTo(200);
            assertThat(resumed.json().get("paused").asBoolean()).isFalse();
            assertThat(app.signal.count()).as("resuming wakes the workers").isEqualTo(1);
            assertThat(store.queue().claim("w1", Set.of("shell"), QueueSelection.ALL, 10, Duration.ofSeconds(30)))
                    .hasSize(1);
        }

        @Test
        void pausingAQueueNoJobUsesYetKeepsItPausedForTheJobsToCome() {
            assertThat(api.post("/api/queues/later/pause").json().get("paused").asBoolean()).isTrue();
            submitIn("later");

            assertThat(api.get("/api/queues/later").json().get("paused").asBoolean()).isTrue();
            assertThat(store.queue().claim("w1", Set.of("shell"), QueueSelection.ALL, 10, Duration.ofSeconds(30)))
                    .isEmpty();
        }

        @Test
        void pauseAndResumeKeepTheLimitsAndTakeNoBody() {
            api.put("/api/queues/reports", "{\"max_running\": 2}");

            assertThat(api.post("/api/queues/reports/pause").json().get("max_running").asInt()).isEqualTo(2);
            assertThat(api.post("/api/queues/reports/resume", "{}").json().get("max_running").asInt()).isEqualTo(2);
            assertThat(api.post("/api/queues/reports/pause").status()).as("twice is fine").isEqualTo(200);
        }
    }

    /** A PUT body the API refuses, the status and the field it must name. */
    static Stream<Arguments> refusedBodies() {
        return Stream.of(
                // not an object: 400, no field
                Arguments.of("an array", "[]", 400, null),
                Arguments.of("a number", "2", 400, null),
                Arguments.of("a string", "\"max_running\"", 400, null),
                Arguments.of("null", "null", 400, null),
                Arguments.of("empty", "", 400, null),
                Arguments.of("truncated", "{\"max_running\": ", 400, null),
                Arguments.of("a duplicate key", "{\"max_running\": 1, \"max_running\": 2}", 400, "max_running"),
                Arguments.of("two documents", "{} {}", 400, null),
                // unknown fields
                Arguments.of("unknown field", "{\"maxRunning\": 2}", 422, "maxRunning"),
                Arguments.of("unknown field paused", "{\"paused\": true}", 422, "paused"),
                Arguments.of("unknown field name", "{\"name\": \"other\"}", 422, "name"),
                Arguments.of("a 5000-character key", "{\"" + "k".repeat(5000) + "\": 1}", 422, "k".repeat(60) + "…"),
                // max_running
                Arguments.of("max_running 0", "{\"max_running\": 0}", 422, "max_running"),
                Arguments.of("max_running -1", "{\"max_running\": -1}", 422, "max_running"),
                Arguments.of("max_running 100001", "{\"max_running\": 100001}", 422, "max_running"),
                Arguments.of("max_running a string", "{\"max_running\": \"2\"}", 422, "max_running"),
                Arguments.of("max_running a fraction", "{\"max_running\": 2.5}", 422, "max_running"),
                Arguments.of("max_running 2.0", "{\"max_running\": 2.0}", 422, "max_running"),
                Arguments.of("max_running true", "{\"max_running\": true}", 422, "max_running"),
                Arguments.of("max_running an object", "{\"max_running\": {}}", 422, "max_running"),
                Arguments.of("max_running an array", "{\"max_running\": [2]}", 422, "max_running"),
                Arguments.of("max_running 2^31", "{\"max_running\": 2147483648}", 422, "max_running"),
                Arguments.of("max_running 10^20", "{\"max_running\": 100000000000000000000}", 422, "max_running"),
                Arguments.of("max_running 1e309", "{\"max_running\": 1e309}", 422, "max_running"),
                Arguments.of("max_running with 2000 digits", "{\"max_running\": " + "9".repeat(2000) + "}", 422,
                        "max_running"),
                // rate_limit
                Arguments.of("rate_limit a number", "{\"rate_limit\": 100}", 422, "rate_limit"),
                Arguments.of("rate_limit a string", "{\"rate_limit\": \"100/60\"}", 422, "rate_limit"),
                Arguments.of("rate_limit an array", "{\"rate_limit\": [100, 60]}", 422, "rate_limit"),
                Arguments.of("rate_limit true", "{\"rate_limit\": true}", 422, "rate_limit"),
                Arguments.of("rate_limit empty", "{\"rate_limit\": {}}", 422, "rate_limit.count"),
                Arguments.of("rate_limit without count", "{\"rate_limit\": {\"per_seconds\": 60}}", 422,
                        "rate_limit.count"),
                Arguments.of("rate_limit without per_seconds", "{\"rate_limit\": {\"count\": 100}}", 422,
                        "rate_limit.per_seconds"),
                Arguments.of("rate_limit with an unknown key", "{\"rate_limit\": {\"count\": 1, \"per_seconds\": 1, "
                        + "\"burst\": 5}}", 422, "rate_limit.burst"),
                Arguments.of("rate_limit with a typo", "{\"rate_limit\": {\"count\": 1, \"per_second\": 1}}", 422,
                        "rate_limit.per_second"),
                Arguments.of("rate_limit.count null", "{\"rate_limit\": {\"count\": null, \"per_seconds\": 60}}", 422,
                        "rate_limit.count"),
                Arguments.of("rate_limit.per_seconds null", "{\"rate_limit\": {\"count\": 5, \"per_seconds\": null}}",
                        422, "rate_limit.per_seconds"),
                Arguments.of("rate_limit.count 0", "{\"rate_limit\": {\"count\": 0, \"per_seconds\": 60}}", 422,
                        "rate_limit.count"),
                Arguments.of("rate_limit.count 1000001", "{\"rate_limit\": {\"count\": 1000001, \"per_seconds\": 60}}",
                        422, "rate_limit.count"),
                Arguments.of("rate_limit.count a string", "{\"rate_limit\": {\"count\": \"5\", \"per_seconds\": 60}}",
                        422, "rate_limit.count"),
                Arguments.of("rate_limit.count huge", "{\"rate_limit\": {\"count\": 99999999999999999999, "
                        + "\"per_seconds\": 60}}", 422, "rate_limit.count"),
                Arguments.of("rate_limit.per_seconds 0", "{\"rate_limit\": {\"count\": 5, \"per_seconds\": 0}}", 422,
                        "rate_limit.per_seconds"),
                Arguments.of("rate_limit.per_seconds 86401", "{\"rate_limit\": {\"count\": 5, \"per_seconds\": 86401}}",
                        422, "rate_limit.per_seconds"),
                Arguments.of("rate_limit.per_seconds a fraction", "{\"rate_limit\": {\"count\": 5, \"per_seconds\": "
                        + "0.5}}", 422, "rate_limit.per_seconds"),
                Arguments.of("rate_limit.per_seconds -1e309", "{\"rate_limit\": {\"count\": 5, \"per_seconds\": "
                        + "-1e309}}", 422, "rate_limit.per_seconds"),
                Arguments.of("a good max_running beside a bad rate_limit", "{\"max_running\": 3, \"rate_limit\": "
                        + "{\"count\": 0, \"per_seconds\": 60}}", 422, "rate_limit.count"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedBodies")
    void aRefusedBodyAnswersAJsonErrorNamingTheFieldAndChangesNothing(String name, String body, int status,
                                                                      String field) {
        api.put("/api/queues/reports", "{\"max_running\": 7, \"rate_limit\": {\"count\": 9, \"per_seconds\": 9}}");
        List<QueueInfo> before = store.queues().list(null);
        app.signal.reset();

        Api.Reply r = api.put("/api/queues/reports", body);

        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/json");
        assertThat(r.json().get("error").asText()).isNotBlank();
        if (field == null) {
            assertThat(r.json().has("field")).as(r.body()).isFalse();
        } else {
            assertThat(r.json().get("field").asText()).as(r.body()).isEqualTo(field);
        }
        assertThat(r.body()).doesNotContain("Exception", "io.forgeflow", ".java");
        assertThat(store.queues().list(null)).isEqualTo(before);
        assertThat(app.signal.count()).isZero();
    }

    @Test
    void theErrorsSayWhatIsExpected() {
        assertThat(api.put("/api/queues/q", "{\"max_running\": \"2\"}").json().get("error").asText())
                .isEqualTo("max_running must be a whole number from 1 to 100000, or null for no limit, not a string");
        assertThat(api.put("/api/queues/q", "{\"max_running\": 0}").json().get("error").asText())
                .isEqualTo("max_running must be between 1 and 100000, or null for no limit, was 0");
        assertThat(api.put("/api/queues/q", "{\"maxRunning\": 2}").json().get("error").asText())
                .startsWith("unknown field 'maxRunning': a queue takes max_running").contains("rate_limit");
        assertThat(api.put("/api/queues/q", "{\"rate_limit\": 100}").json().get("error").asText())
                .contains("{\"count\": 100, \"per_seconds\": 60}").contains("null to clear it");
        assertThat(api.put("/api/queues/q", "{\"rate_limit\": {\"count\": 100}}").json().get("error").asText())
                .contains("needs both count and per_seconds");
        assertThat(api.put("/api/queues/q", "[]").json().get("error").asText())
                .contains("must be a JSON object").contains("max_running");
    }

    static Stream<Arguments> badNames() {
        return Stream.of(
                Arguments.of("a space", "a b"),
                Arguments.of("a leading dash", "-reports"),
                Arguments.of("a leading dot", ".reports"),
                Arguments.of("an umlaut", "zürich"),
                Arguments.of("an emoji", "🚀"),
                Arguments.of("a star", "*"),
                Arguments.of("a comma", "a,b"),
                Arguments.of("an equals sign", "a=2"),
                Arguments.of("a colon", "a:b"),
                Arguments.of("a quote", "a'b"),
                Arguments.of("101 characters", "q".repeat(101)),
                Arguments.of("5000 characters", "q".repeat(5000)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badNames")
    void aMalformedQueueNameInThePathIs422NamingNameOnEveryRoute(String label, String name) {
        List<QueueInfo> before = store.queues().list(null);
        String path = path(name);

        for (Api.Reply r : List.of(api.get(path), api.put(path, "{\"max_running\": 2}"), api.post(path + "/pause"),
                api.post(path + "/resume"))) {
            assertThat(r.status()).as(r.body()).isEqualTo(422);
            assertThat(r.json().get("field").asText()).isEqualTo("name");
            assertThat(r.json().get("error").asText()).contains("is not a valid queue name")
                    .doesNotContain("q".repeat(61));
        }
        assertThat(store.queues().list(null)).isEqualTo(before);
        assertThat(app.signal.count()).isZero();
    }

    @Test
    void aHundredCharacterNameIsAccepted() {
        String name = "q".repeat(100);

        assertThat(api.put(path(name), "{\"max_running\": 1}").status()).isEqualTo(200);
        assertThat(api.get(path(name)).json().get("name").asText()).isEqualTo(name);
    }

    @Test
    void otherMethodsAndActionsAreNotRoutes() {
        assertThat(api.method("DELETE", "/api/queues/reports").status()).isEqualTo(405);
        assertThat(api.post("/api/queues/reports").status()).isEqualTo(405);
        assertThat(api.post("/api/queues/reports/drain").status()).isEqualTo(404);
        assertThat(api.get("/api/queues/reports/pause").status()).isEqualTo(405);
        assertThat(api.put("/api/queues", "{}").status()).isEqualTo(405);
        assertThat(store.queues().list(null)).extracting(QueueInfo::name).containsExactly("default");
    }
}
