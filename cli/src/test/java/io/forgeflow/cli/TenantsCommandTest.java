package io.forgeflow.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.forgeflow.client.Tenant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code forgeflow tenants}: list, show and set tenants' weights and limits, against an HTTP server on loopback
 * answering API.md's shapes; the options read as {@code queues set}'s do, and every bad one is a usage error (exit 2)
 * that sends nothing.
 */
class TenantsCommandTest {
    static final String ACME = "{\"name\": \"acme\", \"weight\": 3, \"max_running\": 20, \"rate_limit\": "
            + "{\"count\": 100, \"per_seconds\": 60}, \"pending\": 7, \"running\": 2, \"starts_in_window\": 40}";
    static final String DEFAULT = "{\"name\": \"default\", \"weight\": 1, \"max_running\": null, \"rate_limit\": null, "
            + "\"pending\": 12, \"running\": 4, \"starts_in_window\": 0}";

    HttpServer server;
    final List<Map<String, String>> requests = new CopyOnWriteArrayList<>(); // method, uri, body
    final Map<String, String[]> answers = new ConcurrentHashMap<>(); // "METHOD path" -> status, body
    final ObjectMapper json = new ObjectMapper();

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Map<String, String> request = new HashMap<>();
            request.put("method", exchange.getRequestMethod());
            request.put("uri", exchange.getRequestURI().toString());
            request.put("body", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            requests.add(request);
            String key = exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath();
            String[] answer = answers.getOrDefault(key, new String[]{"404", "{\"error\": \"no route " + key + "\"}"});
            byte[] bytes = answer[1].getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(Integer.parseInt(answer[0]), bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of("FORGEFLOW_SERVER", "http://127.0.0.1:" + server.getAddress().getPort());
        Terminal terminal = new Terminal(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
        int code = ForgeFlowCli.run(terminal, args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBareTenantsListsThemAsATable() {
        answers.put("GET /api/tenants", new String[]{"200", "{\"items\": [" + ACME + ", " + DEFAULT + "]}"});

        Result r = cli("tenants");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("""
                NAME     WEIGHT  MAX_RUNNING  RATE_LIMIT  PENDING  RUNNING
                acme          3           20  100/60s           7        2
                default       1            -  -                12        4
                """);
        assertThat(cli("tenants", "list").out()).isEqualTo(r.out());
        assertThat(requests).extracting(q -> q.get("method") + " " + q.get("uri"))
                .containsOnly("GET /api/tenants");
    }

    @Test
    void listWithJsonPrintsTheItemsAndAnEmptyListSaysSo() throws Exception {
        answers.put("GET /api/tenants", new String[]{"200", "{\"items\": [" + ACME + "]}"});
        JsonNode listed = json.readTree(cli("tenants", "--json").out());
        answers.put("GET /api/tenants", new String[]{"200", "{\"items\": []}"});

        assertThat(listed.get("items").get(0).get("name").asText()).isEqualTo("acme");
        assertThat(listed.get("items").get(0).get("max_running").asInt()).isEqualTo(20);
        assertThat(listed.get("items").get(0).get("rate_limit").get("per_seconds").asInt()).isEqualTo(60);
        assertThat(cli("tenants").out()).isEqualTo("no tenants\n");
    }

    @Test
    void showPrintsOneTenantAndGetIsTheSame() {
        answers.put("GET /api/tenants/acme", new String[]{"200", ACME});

        Result r = cli("tenants", "show", "acme");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).containsPattern("(?m)^tenant +acme$").containsPattern("(?m)^weight +3$")
                .containsPattern("(?m)^max running +20$")
                .containsPattern("(?m)^rate limit +100 starts per 60s \\(40 in the current window\\)$")
                .containsPattern("(?m)^running +2$").containsPattern("(?m)^pending +7$");
        assertThat(cli("tenants", "get", "acme").out()).isEqualTo(r.out());
    }

    @Test
    void setPutsOnlyTheOptionsGivenAndPrintsTheTenant() throws Exception {
        answers.put("PUT /api/tenants/acme", new String[]{"200", ACME});

        Result r = cli("tenants", "set", "acme", "--weight", "3", "--max-running", "20", "--rate-limit", "100/60");
        Result weightOnly = cli("tenants", "set", "acme", "--weight", "5");
        Result cleared = cli("tenants", "set", "acme", "--max-running", "none", "--rate-limit", "none");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("tenant acme settings set\n").containsPattern("(?m)^weight +3$");
        assertThat(weightOnly.code()).isZero();
        assertThat(cleared.code()).isZero();
        assertThat(requests).extracting(q -> q.get("method") + " " + q.get("uri")).containsOnly("PUT /api/tenants/acme");
        assertThat(json.readTree(requests.get(0).get("body"))).isEqualTo(json.readTree("{\"weight\": 3, "
                + "\"max_running\": 20, \"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}"));
        assertThat(json.readTree(requests.get(1).get("body"))).isEqualTo(json.readTree("{\"weight\": 5}"));
        assertThat(json.readTree(requests.get(2).get("body"))).isEqualTo(json.readTree("{\"max_running\": null, "
                + "\"rate_limit\": null}"));
    }

    @Test
    void theServersRefusalIsPrintedWithItsField() {
        answers.put("PUT /api/tenants/acme", new String[]{"422", "{\"error\": \"weight must be between 1 and 1000, "
                + "or null for 1, was 0\", \"field\": \"weight\", \"code\": \"validation_failed\"}"});
        answers.put("GET /api/tenants", new String[]{"403", "{\"error\": \"this token acts in tenant acme only: "
                + "/api/tenants is cluster-wide\", \"code\": \"tenant_forbidden\"}"});

        Result refused = cli("tenants", "set", "acme", "--weight", "0");
        Result forbidden = cli("tenants");

        assertThat(refused.code()).isEqualTo(ExitCodes.FAILURE);
        assertThat(refused.err()).contains("weight must be between 1 and 1000");
        assertThat(forbidden.code()).isEqualTo(ExitCodes.FAILURE);
        assertThat(forbidden.err()).contains("cluster-wide");
    }

    @Test
    void usageErrorsSendNothing() {
        assertThat(cli("tenants", "set", "acme").err()).contains("changes nothing without --weight");
        assertThat(cli("tenants", "set", "--weight", "2").err()).contains("tenants set needs the tenant's name");
        assertThat(cli("tenants", "show").err()).contains("tenants show needs the tenant's name");
        assertThat(cli("tenants", "list", "acme").err()).contains("tenants show acme");
        assertThat(cli("tenants", "show", "acme", "--weight", "2").err()).contains("go with set");
        assertThat(cli("tenants", "set", "acme", "--weight", "heavy").err()).contains("--weight 'heavy'");
        assertThat(cli("tenants", "set", "acme", "--rate-limit", "100").err())
                .contains("--rate-limit '100' is not COUNT/SECONDS");
        assertThat(cli("tenants", "set", "acme", "--weight", "2").code()).as("the fake server answers 404")
                .isEqualTo(ExitCodes.NOT_FOUND);
        for (String[] args : new String[][]{{"tenants", "set", "acme"}, {"tenants", "show"},
                {"tenants", "set", "acme", "--weight", "heavy"}, {"tenants", "pause", "acme"}}) {
            assertThat(cli(args).code()).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
        }
        assertThat(requests).hasSize(1);
    }

    @Nested
    class Options {
        @ParameterizedTest
        @CsvSource({"3, 3", " 7 , 7", "1000, 1000", "0, 0", "-1, -1"})
        void weightIsAWholeNumberAndTheServerChecksItsRange(String text, int expected) {
            assertThat(TenantsCommand.weight(text)).isEqualTo(expected);
        }

        @ParameterizedTest
        @CsvSource({"heavy", "2.5", "''", "99999999999", "none"})
        void anythingElseIsAUsageErrorForWeight(String text) {
            assertThatThrownBy(() -> TenantsCommand.weight(text)).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--weight '" + text + "' is not a whole number").hasMessageContaining("1000");
        }

        @Test
        void setSendsOnlyWhatIsGiven() {
            assertThat(TenantsCommand.update("3", null, null).body()).isEqualTo(Map.of("weight", 3));
            assertThat(TenantsCommand.update(null, "2", null).body()).isEqualTo(Map.of("max_running", 2));
            assertThat(TenantsCommand.update(null, null, "100/60").body())
                    .isEqualTo(Map.of("rate_limit", Map.of("count", 100, "per_seconds", 60)));
            Map<String, Object> cleared = new HashMap<>();
            cleared.put("max_running", null);
            cleared.put("rate_limit", null);
            assertThat(TenantsCommand.update(null, "none", "none").body()).isEqualTo(cleared);
            assertThatThrownBy(() -> TenantsCommand.update(null, null, null)).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--weight").hasMessageContaining("--max-running")
                    .hasMessageContaining("--rate-limit");
        }

        @Test
        void limitsReadNaturally() {
            assertThat(TenantsCommand.rateText(new Tenant.RateLimit(100, 60))).isEqualTo("100/60s");
            assertThat(TenantsCommand.rateText(null)).isEqualTo("-");
        }
    }
}
