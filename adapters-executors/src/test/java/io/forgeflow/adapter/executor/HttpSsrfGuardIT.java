package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.execution.ExecutorSettings;
import io.forgeflow.domain.run.AttemptOutcome;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Dns;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The SSRF guard of the http executor against real HTTP servers on loopback: refused when the guard is on, allowed
 * when it is off; every address of a host is checked, and so is every redirect. The private ranges other than
 * loopback are checked by {@link PrivateAddressesTest} and at submission only: no traffic ever leaves this machine.
 */
class HttpSsrfGuardIT {
    final MockWebServer server = new MockWebServer();

    @BeforeEach
    void start() throws IOException {
        server.start(InetAddress.getByName("127.0.0.1"), 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static HttpRunExecutor configured(boolean privateAllowed) {
        HttpRunExecutor http = new HttpRunExecutor();
        http.configure(new ExecutorSettings(privateAllowed));
        return http;
    }

    static ExecutionResult get(HttpRunExecutor http, String url) {
        return http.execute(anAttempt().withPayload(Map.of("url", url, "method", "GET")).build());
    }

    static MockResponse ok() {
        return new MockResponse.Builder().code(200).body("reached").build();
    }

    @Nested
    class GuardOn {
        final HttpRunExecutor http = configured(false);

        @AfterEach
        void close() {
            http.close();
        }

        @Test
        void aLiteralLoopbackUrlIsRefusedBeforeAnyConnection() {
            server.enqueue(ok());

            ExecutionResult result = get(http, "http://127.0.0.1:" + server.getPort() + "/internal");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).startsWith("refused by the SSRF guard: 127.0.0.1 is (or resolves to) a loopback")
                    .contains("FORGEFLOW_HTTP_ALLOW_PRIVATE=true");
            assertThat(server.getRequestCount()).isZero();
        }

        @Test
        void aHostNameThatResolvesToLoopbackIsRefused() {
            server.enqueue(ok());

            ExecutionResult result = get(http, "http://localhost:" + server.getPort() + "/internal");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).startsWith("refused by the SSRF guard: localhost");
            assertThat(server.getRequestCount()).isZero();
        }

        @ParameterizedTest
        @ValueSource(strings = {"http://127.0.0.1/", "http://127.1.2.3:8080/x", "http://[::1]:9000/", "http://10.0.0.1/",
                "https://172.16.5.4/hook", "http://192.168.0.1/", "http://169.254.169.254/latest/meta-data/",
                "http://[fe80::1]/", "http://[fd00::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0:8080/",
                "http://localhost:8080/", "http://api.localhost/"})
        void aLiteralPrivateAddressOrLocalhostIsRefusedAtSubmission(String url) {
            assertThatThrownBy(() -> http.validate(Map.of("url", url)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("payload.url");
                        assertThat(e.getMessage()).contains("SSRF guard").contains("FORGEFLOW_HTTP_ALLOW_PRIVATE");
                    });
        }

        @ParameterizedTest
        @ValueSource(strings = {"https://example.com/hook", "http://93.184.215.14/", "https://[2606:4700::1111]/"})
        void aPublicTargetPassesSubmissionWithoutAnyLookup(String url) {
            assertThatNoException().isThrownBy(() -> http.validate(Map.of("url", url)));
        }
    }

    @Nested
    class GuardOff {
        @Test
        void anUnconfiguredExecutorReachesLoopback() {
            HttpRunExecutor http = new HttpRunExecutor();
            try {
                server.enqueue(ok());
                assertThat(http.guarded()).isFalse();
                assertThat(get(http, "http://127.0.0.1:" + server.getPort() + "/").output()).isEqualTo("HTTP 200 OK\nreached");
                assertThatNoException().isThrownBy(() -> http.validate(Map.of("url", "http://127.0.0.1/")));
            } finally {
                http.close();
            }
        }

        @Test
        void privateTargetsAllowedReachesLoopbackByAddressAndByName() {
            HttpRunExecutor http = configured(true);
            try {
                server.enqueue(ok());
                server.enqueue(ok());
                assertThat(get(http, "http://127.0.0.1:" + server.getPort() + "/").outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
                assertThat(get(http, "http://localhost:" + server.getPort() + "/").outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
                assertThat(server.getRequestCount()).isEqualTo(2);
            } finally {
                http.close();
            }
        }
    }

    /**
     * A guard that refuses 127.0.0.2 only, so that a server on 127.0.0.1 plays the allowed public endpoint and one
     * on 127.0.0.2 the internal service it must not lead to.
     */
    @Nested
    class RedirectsAndResolution {
        final MockWebServer internal = new MockWebServer();
        final Dns names = host -> switch (host) {
            case "internal.test" -> List.of(InetAddress.getByName("127.0.0.2"));
            case "public.test" -> List.of(InetAddress.getByName("127.0.0.1"));
            case "mixed.test" -> List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("127.0.0.2"));
            default -> throw new UnknownHostException(host);
        };
        final HttpRunExecutor http = new HttpRunExecutor(HttpRunExecutor.Settings.defaults(),
                new AddressGuard(a -> a.getHostAddress().equals("127.0.0.2"), names));

        @BeforeEach
        void startInternal() throws IOException {
            internal.start(InetAddress.getByName("127.0.0.2"), 0);
            internal.enqueue(ok());
        }

        @AfterEach
        void close() {
            http.close();
            internal.close();
        }

        @Test
        void anAllowedHostIsReached() {
            server.enqueue(ok());

            assertThat(get(http, "http://public.test:" + server.getPort() + "/").outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        }

        @Test
        void aRedirectToARefusedLiteralAddressIsNotFollowed() {
            server.enqueue(new MockResponse.Builder().code(302)
                    .addHeader("Location", "http://127.0.0.2:" + internal.getPort() + "/secret").build());

            ExecutionResult result = get(http, "http://public.test:" + server.getPort() + "/start");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).startsWith("refused by the SSRF guard: 127.0.0.2").contains("a redirect from public.test");
            assertThat(server.getRequestCount()).isEqualTo(1);
            assertThat(internal.getRequestCount()).isZero();
        }

        @Test
        void aRedirectToAHostNameThatResolvesToARefusedAddressIsNotFollowed() {
            server.enqueue(new MockResponse.Builder().code(301)
                    .addHeader("Location", "http://internal.test:" + internal.getPort() + "/secret").build());

            ExecutionResult result = get(http, "http://public.test:" + server.getPort() + "/start");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).startsWith("refused by the SSRF guard: internal.test");
            assertThat(internal.getRequestCount()).isZero();
        }

        @Test
        void aHostWithOneRefusedAddressAmongAllowedOnesIsRefusedAltogether() {
            server.enqueue(ok());

            ExecutionResult result = get(http, "http://mixed.test:" + server.getPort() + "/");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).startsWith("refused by the SSRF guard: mixed.test");
            assertThat(server.getRequestCount()).isZero();
        }
    }
}
