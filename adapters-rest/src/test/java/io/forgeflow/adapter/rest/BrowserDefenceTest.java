package io.forgeflow.adapter.rest;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BrowserDefenceTest {
    static final BrowserDefence TOKENLESS = BrowserDefence.of(List.of(), List.of(), false);
    static final BrowserDefence WITH_TOKENS = BrowserDefence.of(List.of(), List.of(), true);
    static final BrowserDefence ALLOWING = BrowserDefence.of(List.of("https://Ops.Example.com:443, http://localhost:3000"),
            List.of("forgeflow.internal", "10.0.0.5:8080"), false);

    static String verdict(BrowserDefence defence, String method, String host, String origin, String site) {
        Optional<BrowserDefence.Refusal> r = defence.check(method, "http", nullable(host), 8080, nullable(origin),
                nullable(site));
        return r.map(x -> x.status() + " " + x.header()).orElse("pass");
    }

    private static String nullable(String s) {
        return s == null || s.equals("-") ? null : s;
    }

    @ParameterizedTest(name = "{0} Host {1} Origin {2} Sec-Fetch-Site {3}: {4}")
    @CsvSource({
            "POST,   127.0.0.1:8080,     -,                        -,           pass",
            "POST,   127.0.0.1:8080,     http://127.0.0.1:8080,    same-origin, pass",
            "POST,   localhost:8080,     http://localhost:8080,    -,           pass",
            "POST,   localhost,          http://localhost:8080,    -,           pass",
            "POST,   [::1]:8080,         http://[::1]:8080,        -,           pass",
            "POST,   127.0.0.1:8080,     http://localhost:8080,    -,           403 Origin",
            "POST,   127.0.0.1:8080,     http://127.0.0.1:9999,    same-site,   403 Origin",
            "POST,   127.0.0.1:8080,     https://127.0.0.1:8080,   -,           403 Origin",
            "POST,   127.0.0.1:8080,     https://evil.example,     -,           403 Origin",
            "POST,   127.0.0.1:8080,     null,                     -,           403 Origin",
            "POST,   127.0.0.1:8080,     -,                        cross-site,  403 Sec-Fetch-Site",
            "POST,   127.0.0.1:8080,     http://127.0.0.1:8080,    Cross-Site,  403 Sec-Fetch-Site",
            "PUT,    127.0.0.1:8080,     https://evil.example,     -,           403 Origin",
            "PATCH,  127.0.0.1:8080,     https://evil.example,     -,           403 Origin",
            "DELETE, 127.0.0.1:8080,     https://evil.example,     -,           403 Origin",
            "GET,    127.0.0.1:8080,     https://evil.example,     cross-site,  pass",
            "HEAD,   127.0.0.1:8080,     https://evil.example,     cross-site,  pass",
            "GET,    rebind.evil.example:8080, -,                  -,           421 Host",
            "POST,   rebind.evil.example:8080, http://rebind.evil.example:8080, same-origin, 421 Host",
            "GET,    127.1.2.3:8080,     -,                        -,           pass",
            "GET,    128.0.0.1:8080,     -,                        -,           421 Host",
            "GET,    127.0.0.1.evil.example, -,                    -,           421 Host",
            "GET,    localhost.evil.example, -,                    -,           421 Host",
            "GET,    [::2]:8080,         -,                        -,           421 Host",
            "GET,    10.0.0.5:8080,      -,                        -,           421 Host",
            "GET,    -,                  -,                        -,           pass",
    })
    void aTokenlessNodeRefusesForeignOriginsAndHosts(String method, String host, String origin, String site,
                                                     String expected) {
        assertThat(verdict(TOKENLESS, method, host, origin, site)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} Host {1} Origin {2}: {3}")
    @CsvSource({
            "GET,  rebind.evil.example:8080, -,                      pass",
            "POST, forgeflow.example.com,    http://forgeflow.example.com:8080, pass",
            "POST, forgeflow.example.com,    https://evil.example,   403 Origin",
    })
    void withTokensHostsAreOpenButOriginsAreNot(String method, String host, String origin, String expected) {
        assertThat(verdict(WITH_TOKENS, method, host, origin, "-")).isEqualTo(expected);
        assertThat(WITH_TOKENS.restrictsHosts()).isFalse();
        assertThat(TOKENLESS.restrictsHosts()).isTrue();
    }

    @ParameterizedTest(name = "{0} Host {1} Origin {2}: {3}")
    @CsvSource({
            "POST, 127.0.0.1:8080,          https://ops.example.com,     pass",
            "POST, 127.0.0.1:8080,          HTTPS://OPS.EXAMPLE.COM:443, pass",
            "POST, 127.0.0.1:8080,          http://ops.example.com,      403 Origin",
            "POST, 127.0.0.1:8080,          http://localhost:3000,       pass",
            "POST, 127.0.0.1:8080,          http://localhost:3001,       403 Origin",
            "GET,  forgeflow.internal:8080, -,                           pass",
            "GET,  FORGEFLOW.INTERNAL.,     -,                           pass",
            "GET,  10.0.0.5,                -,                           pass",
            "GET,  other.internal:8080,     -,                           421 Host",
    })
    void listedOriginsAndHostsAreAllowed(String method, String host, String origin, String expected) {
        assertThat(verdict(ALLOWING, method, host, origin, "-")).isEqualTo(expected);
    }

    @Test
    void listedHostsRestrictHostsEvenWithTokens() {
        BrowserDefence defence = BrowserDefence.of(List.of(), List.of("forgeflow.internal"), true);
        assertThat(defence.restrictsHosts()).isTrue();
        assertThat(verdict(defence, "GET", "other.example", "-", "-")).isEqualTo("421 Host");
        assertThat(verdict(defence, "GET", "forgeflow.internal", "-", "-")).isEqualTo("pass");
    }

    @Test
    void theOwnOriginUsesTheServedPortWhenHostHasNone() {
        assertThat(TOKENLESS.check("POST", "http", "localhost", 8080, "http://localhost:8080", null)).isEmpty();
        assertThat(TOKENLESS.check("POST", "http", "localhost", 80, "http://localhost", null)).isEmpty();
        assertThat(TOKENLESS.check("POST", "https", "localhost:443", 443, "https://localhost", null)).isEmpty();
        assertThat(TOKENLESS.check("POST", "http", "localhost", 8080, "http://localhost", null)).isPresent();
    }

    @Nested
    class Messages {
        @Test
        void anOriginRefusalNamesTheHeaderAndTheSetting() {
            BrowserDefence.Refusal r = TOKENLESS.check("POST", "http", "127.0.0.1:8080", 8080,
                    "https://evil.example", null).orElseThrow();
            assertThat(r.message()).contains("Origin header").contains("https://evil.example")
                    .contains(BrowserDefence.ORIGINS_VARIABLE);
        }

        @Test
        void aHostRefusalNamesTheHeaderAndTheSetting() {
            BrowserDefence.Refusal r = TOKENLESS.check("GET", "http", "rebind.evil.example:8080", 8080, null, null)
                    .orElseThrow();
            assertThat(r.message()).contains("Host header").contains("rebind.evil.example")
                    .contains(BrowserDefence.HOSTS_VARIABLE + "=rebind.evil.example");
        }

        @Test
        void aSecFetchSiteRefusalNamesTheHeader() {
            BrowserDefence.Refusal r = TOKENLESS.check("POST", "http", "127.0.0.1:8080", 8080, null, "cross-site")
                    .orElseThrow();
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.message()).contains("Sec-Fetch-Site").contains(BrowserDefence.ORIGINS_VARIABLE);
        }
    }

    @ParameterizedTest
    @CsvSource({"ops.example.com", "https://ops.example.com/path", "ftp://ops.example.com", "https://",
            "https://user@ops.example.com", "https://ops.example.com:99999", "https://ops.example.com:x"})
    void aMalformedOriginStopsWithTheVariableNamed(String entry) {
        assertThatThrownBy(() -> BrowserDefence.of(List.of(entry), List.of(), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(BrowserDefence.ORIGINS_VARIABLE).hasMessageContaining("scheme://host");
    }

    @ParameterizedTest
    @CsvSource({"forgeflow.internal/api", "'[::1'"})
    void aMalformedHostStopsWithTheVariableNamed(String entry) {
        assertThatThrownBy(() -> BrowserDefence.of(List.of(), List.of(entry), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(BrowserDefence.HOSTS_VARIABLE);
    }

    @ParameterizedTest
    @CsvSource({"localhost, true", "127.0.0.1, true", "127.255.255.254, true", "[::1], true",
            "[0:0:0:0:0:0:0:1], true", "127.0.0.256, false", "0.0.0.0, false", "[::], false", "example.com, false",
            "localhost.localdomain, false"})
    void loopbackNamesAreRecognisedWithoutDns(String host, boolean loopback) {
        assertThat(BrowserDefence.isLoopback(host)).isEqualTo(loopback);
    }
}
