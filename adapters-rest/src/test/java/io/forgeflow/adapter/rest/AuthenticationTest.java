package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every route of API.md against every kind of token, over real HTTP (rest-auth-test.yml: one token per scope, a
 * read+operate token configured as its SHA-256): a token with the route's scope (or admin) reaches the route, one
 * without gets 403, no token or a wrong one 401; the probes stay open; /metrics takes its own token.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AuthenticationTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-auth-test.yml"));

    static final String UNKNOWN = "01900000-0000-7000-8000-000000000000";
    static final AtomicInteger NAMES = new AtomicInteger();
    static String job;

    /** A kind of token: what it is called in the table, the token (null: none), its scopes (null: not valid). */
    record Token(String label, String value, Set<Scope> scopes) {
        @Override
        public String toString() {
            return label;
        }
    }

    static final List<Token> TOKENS = List.of(
            new Token("no token", null, null),
            new Token("wrong token", "wrong-token-0123456789", null),
            new Token("read", HostileRequestsTest.READ, Set.of(Scope.READ)),
            new Token("operate", HostileRequestsTest.OPERATE, Set.of(Scope.OPERATE)),
            new Token("submit", HostileRequestsTest.SUBMIT, Set.of(Scope.SUBMIT)),
            new Token("admin", HostileRequestsTest.ADMIN, Set.of(Scope.ADMIN)),
            new Token("sha256 read+operate", HostileRequestsTest.HASHED, Set.of(Scope.READ, Scope.OPERATE)));

    /** A route of API.md and what it answers once past authentication (unknown ids: 404, so that nothing changes). */
    record Route(String method, String path, Scope scope, int reached) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    static final List<Route> ROUTES = List.of(
            new Route("POST", "/api/jobs", Scope.SUBMIT, 201),
            new Route("GET", "/api/jobs?status=active&limit=5", Scope.READ, 200),
            new Route("GET", "/api/jobs/{job}", Scope.READ, 200),
            new Route("POST", "/api/jobs/" + UNKNOWN + "/pause", Scope.OPERATE, 404),
            new Route("POST", "/api/jobs/" + UNKNOWN + "/resume", Scope.OPERATE, 404),
            new Route("POST", "/api/jobs/" + UNKNOWN + "/cancel", Scope.OPERATE, 404),
            new Route("POST", "/api/jobs/" + UNKNOWN + "/trigger", Scope.OPERATE, 404),
            new Route("GET", "/api/runs?status=dead", Scope.READ, 200),
            new Route("GET", "/api/runs/" + UNKNOWN, Scope.READ, 404),
            new Route("POST", "/api/runs/" + UNKNOWN + "/requeue", Scope.OPERATE, 404),
            new Route("POST", "/api/runs/" + UNKNOWN + "/cancel", Scope.OPERATE, 404),
            new Route("GET", "/api/stats", Scope.READ, 200),
            new Route("GET", "/api/nodes", Scope.READ, 200),
            new Route("GET", "/api/queues", Scope.READ, 200),
            new Route("GET", "/api/queues/reports", Scope.READ, 200),
            new Route("PUT", "/api/queues/reports", Scope.OPERATE, 200),
            new Route("POST", "/api/queues/reports/pause", Scope.OPERATE, 200),
            new Route("POST", "/api/queues/reports/resume", Scope.OPERATE, 200),
            new Route("GET", "/api/tenants", Scope.READ, 200),
            new Route("GET", "/api/tenants/acme", Scope.READ, 200),
            new Route("PUT", "/api/tenants/acme", Scope.ADMIN, 200),
            new Route("GET", "/healthz", null, 200),
            new Route("GET", "/readyz", null, 200));

    @BeforeAll
    static void seed() {
        Api.Reply r = new Api(APP.getLocalPort(), HostileRequestsTest.ADMIN).post("/api/jobs",
                "{\"name\": \"seed\", \"executor\": \"shell\", \"cron_expr\": \"@hourly\"}");
        assertThat(r.status()).isEqualTo(201);
        job = r.json().get("id").asText();
    }

    static List<Arguments> routesTimesTokens() {
        List<Arguments> table = new ArrayList<>();
        for (Route route : ROUTES) {
            for (Token token : TOKENS) {
                int expected;
                if (route.scope() == null) {
                    expected = route.reached();
                } else if (token.scopes() == null) {
                    expected = 401;
                } else if (token.scopes().contains(Scope.ADMIN) || token.scopes().contains(route.scope())) {
                    expected = route.reached();
                } else {
                    expected = 403;
                }
                table.add(Arguments.of(route, token, expected));
            }
        }
        return table;
    }

    @ParameterizedTest(name = "{0} with {1}: {2}")
    @MethodSource("routesTimesTokens")
    void eachRouteAnswersEachTokenByItsScope(Route route, Token token, int expected) {
        Api api = new Api(APP.getLocalPort(), token.value());
        String path = route.path().replace("{job}", job);
        Api.Reply r = route.method().equals("GET") ? api.get(path)
                : route.method().equals("PUT") ? api.put(path, "{}")
                : path.equals("/api/jobs") ? api.post(path, "{\"name\": \"job-" + NAMES.incrementAndGet()
                + "\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}")
                : api.post(path);

        assertThat(r.status()).as("%s; body %s", route, r.body()).isEqualTo(expected);
        if (expected == 401 || expected == 403) {
            assertThat(r.fieldNames()).containsExactly("error", "code");
            assertThat(r.json().get("code").asText()).isEqualTo(expected == 401 ? "unauthorized" : "forbidden");
            assertThat(r.header("WWW-Authenticate")).startsWith("Bearer realm=\"forgeflow\"");
        }
        if (expected == 403) {
            assertThat(r.json().get("error").asText()).contains("'" + route.scope().wireName() + "' scope");
            assertThat(r.header("WWW-Authenticate")).endsWith("error=\"insufficient_scope\", scope=\""
                    + route.scope().wireName() + "\"");
        }
    }

    @Test
    void aPauseKeepsTheNameOfTheTokenThatPausedAndItsNote() {
        Api admin = new Api(APP.getLocalPort(), HostileRequestsTest.ADMIN);
        String id = admin.post("/api/jobs", "{\"name\": \"noted\", \"executor\": \"shell\", \"cron_expr\": "
                + "\"@hourly\"}").json().get("id").asText();

        Api.Reply r = new Api(APP.getLocalPort(), HostileRequestsTest.OPERATE).post("/api/jobs/" + id + "/pause",
                "{\"note\": \"vendor outage\"}");

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("paused_note").asText()).isEqualTo("vendor outage");
        assertThat(r.json().get("paused_by").asText()).isEqualTo("token 3");
        assertThat(admin.get("/api/jobs/" + id).json().get("paused_by").asText()).isEqualTo("token 3");
        assertThat(r.body()).doesNotContain("operate-token");
    }

    @Nested
    class Answers {
        final Api anonymous = new Api(APP.getLocalPort());

        @Test
        void noTokenIs401WithAChallengeAndAMessageThatSaysWhatToSend() {
            Api.Reply r = anonymous.get("/api/jobs");

            assertThat(r.status()).isEqualTo(401);
            assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"forgeflow\"");
            assertThat(r.header("Content-Type")).startsWith("application/json");
            assertThat(r.json().get("error").asText()).contains("Authorization: Bearer <token>")
                    .contains("FORGEFLOW_API_TOKENS");
        }

        @Test
        void aWrongTokenIs401WithInvalidToken() {
            Api.Reply r = new Api(APP.getLocalPort(), "nope").get("/api/jobs");

            assertThat(r.status()).isEqualTo(401);
            assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"forgeflow\", error=\"invalid_token\"");
            assertThat(r.body()).doesNotContain("nope");
        }

        @Test
        void aTokenInTheQueryStringIsIgnoredAndTheAnswerSaysSo() {
            Api.Reply r = anonymous.get("/api/jobs?access_token=" + HostileRequestsTest.ADMIN);

            assertThat(r.status()).isEqualTo(401);
            assertThat(r.json().get("error").asText()).contains("tokens in the URL are ignored");
        }

        @Test
        void theSchemeIsCaseInsensitive() {
            RawHttp.Reply raw = send("GET", "/api/stats", Map.of("Authorization", "bearer " + HostileRequestsTest.READ));
            assertThat(raw.status()).isEqualTo(200);
        }

        @Test
        void aNodeWithoutTokensIsOpenSoNoFilterIsRegistered() {
            assertThat(RestModule.authentication(ApiTokens.none())).isEmpty();
            assertThat(RestModule.authentication(ApiTokens.parse(List.of("read:x-0123456789abcdef")))).hasSize(1);
        }
    }

    @Nested
    class Probes {
        @AfterEach
        void reset() {
            ((RestTestApplication) APP.getApplication()).readyWarnings.set(List.of());
        }

        @Test
        void healthAndReadinessNeedNoTokenAndIgnoreAWrongOne() {
            Api wrong = new Api(APP.getLocalPort(), "wrong");
            assertThat(wrong.get("/healthz").status()).isEqualTo(200);
            assertThat(wrong.get("/readyz").body()).isEqualTo("{\"status\":\"ready\"}");
        }

        @Test
        void readinessShowsTheNodesWarningsAndStays200() {
            ((RestTestApplication) APP.getApplication()).readyWarnings.set(List.of("running without authentication"));

            Api.Reply r = new Api(APP.getLocalPort()).get("/readyz");

            assertThat(r.status()).isEqualTo(200);
            JsonNode body = r.json();
            assertThat(body.get("status").asText()).isEqualTo("ready");
            assertThat(body.get("warnings")).hasSize(1);
            assertThat(body.get("warnings").get(0).asText()).isEqualTo("running without authentication");
        }
    }

    @Nested
    class Metrics {
        @Test
        void needTheMetricsToken() {
            assertThat(new Api(APP.getLocalPort(), "metrics-token-0123456789").get("/metrics").body())
                    .contains("forgeflow_test_metric 1");
        }

        @Test
        void refuseNoTokenAWrongOneAndEvenTheAdminTokenWith401() {
            Api.Reply none = new Api(APP.getLocalPort()).get("/metrics");
            assertThat(none.status()).isEqualTo(401);
            assertThat(none.fieldNames()).containsExactly("error", "code");
            assertThat(none.json().get("error").asText()).contains("FORGEFLOW_METRICS_TOKEN");
            assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"forgeflow\"");

            Api.Reply wrong = new Api(APP.getLocalPort(), "metrics-token-012345678").get("/metrics");
            assertThat(wrong.status()).isEqualTo(401);
            assertThat(wrong.header("WWW-Authenticate")).contains("invalid_token");
            assertThat(new Api(APP.getLocalPort(), HostileRequestsTest.ADMIN).get("/metrics").status()).isEqualTo(401);
        }

        @Test
        void aMalformedMetricsTokenIsRefusedAtStartNamingTheVariable() {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RestModule.metricsToken("sha256:abc"))
                    .hasMessageContaining("FORGEFLOW_METRICS_TOKEN").hasMessageContaining("64 hexadecimal");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RestModule.metricsToken(" "))
                    .hasMessageContaining("FORGEFLOW_METRICS_TOKEN");
        }
    }

    static RawHttp.Reply send(String method, String path, Map<String, String> headers) {
        try {
            return new RawHttp(APP.getLocalPort()).send(new RawHttp.Request(method, path, headers, null, false));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
