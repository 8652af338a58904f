package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.ExecutionResult;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;

/** A redirect to another host takes none of the job's headers along; one on the same host and port keeps them. */
class RedirectHeadersIT {
    static final Map<String, Object> HEADERS = Map.of("Authorization", "Bearer s3cret", "X-Api-Key", "k3y",
            "Cookie", "session=c00kie", "X-Custom", "mine");

    final MockWebServer first = new MockWebServer();
    final MockWebServer second = new MockWebServer();
    final HttpRunExecutor http = new HttpRunExecutor();

    @BeforeEach
    void start() throws IOException {
        first.start(InetAddress.getByName("127.0.0.1"), 0);
        second.start(InetAddress.getByName("127.0.0.1"), 0);
    }

    @AfterEach
    void stop() {
        http.close();
        first.close();
        second.close();
    }

    ExecutionResult get(String url) {
        return http.execute(anAttempt().withPayload(Map.of("url", url, "method", "GET", "headers", HEADERS)).build());
    }

    static RecordedRequest taken(MockWebServer server) throws InterruptedException {
        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request).as("a request reached the server").isNotNull();
        return request;
    }

    @Test
    void aRedirectToAnotherHostDropsEveryHeaderTheJobSet() throws Exception {
        // "localhost" is another host than "127.0.0.1" to the client, though both reach loopback
        String elsewhere = "http://localhost:" + second.getPort() + "/landing";
        first.enqueue(new MockResponse.Builder().code(302).addHeader("Location", elsewhere).build());
        second.enqueue(new MockResponse.Builder().code(200).body("landed").build());

        ExecutionResult result = get("http://127.0.0.1:" + first.getPort() + "/start");

        assertThat(result.output()).startsWith("HTTP 200").contains("landed");
        RecordedRequest original = taken(first);
        assertThat(original.getHeaders().get("X-Api-Key")).isEqualTo("k3y");
        assertThat(original.getHeaders().get("Authorization")).isEqualTo("Bearer s3cret");
        RecordedRequest redirected = taken(second);
        for (String name : HEADERS.keySet()) {
            assertThat(redirected.getHeaders().get(name)).as(name).isNull();
        }
        assertThat(redirected.getHeaders().get("X-ForgeFlow-Run-Id")).isEqualTo("run-1"); // ours, not the job's
    }

    @Test
    void aRedirectToAnotherPortOfTheSameHostDropsThemToo() throws Exception {
        first.enqueue(new MockResponse.Builder().code(307)
                .addHeader("Location", "http://127.0.0.1:" + second.getPort() + "/x").build());
        second.enqueue(new MockResponse.Builder().code(204).build());

        get("http://127.0.0.1:" + first.getPort() + "/start");

        taken(first);
        assertThat(taken(second).getHeaders().get("X-Custom")).isNull();
    }

    @Test
    void aRedirectOnTheSameHostAndPortKeepsTheJobsHeaders() throws Exception {
        first.enqueue(new MockResponse.Builder().code(301).addHeader("Location", "/moved").build());
        first.enqueue(new MockResponse.Builder().code(200).body("here").build());

        get("http://127.0.0.1:" + first.getPort() + "/start");

        taken(first);
        RecordedRequest moved = taken(first);
        assertThat(moved.getTarget()).isEqualTo("/moved");
        assertThat(moved.getHeaders().get("X-Api-Key")).isEqualTo("k3y");
        assertThat(moved.getHeaders().get("Authorization")).isEqualTo("Bearer s3cret");
    }

    @ParameterizedTest(name = "{0} -> {1}: stripped {2}")
    @CsvSource({
            "https://a.example/x,      https://a.example/y,      false",
            "https://a.example/x,      http://a.example:443/y,   true",
            "https://a.example/x,      http://a.example/y,       true",
            "http://a.example/x,       https://a.example/y,      true",
            "http://a.example/x,       http://A.EXAMPLE/y,       false",
            "http://a.example/x,       http://b.example/x,       true",
            "http://a.example:8080/x,  http://a.example:8081/x,  true"})
    void theRuleIsHostPortAndNoDowngrade(String from, String to, boolean stripped) {
        RedirectHeaders.JobHeaders job = new RedirectHeaders.JobHeaders(HttpUrl.get(from), Set.of("X-Api-Key"));
        assertThat(job.strippedFor(HttpUrl.get(to))).isEqualTo(stripped);
    }
}
