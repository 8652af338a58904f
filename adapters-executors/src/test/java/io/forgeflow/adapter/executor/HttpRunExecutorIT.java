package io.forgeflow.adapter.executor;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;

/** Real HTTP calls to a MockWebServer on loopback (and to closed ports and unresolvable hosts). */
class HttpRunExecutorIT {
    static final ObjectMapper JSON = new ObjectMapper();

    final MockWebServer server = new MockWebServer();
    final HttpRunExecutor http = new HttpRunExecutor();
    final ExecutorService background = Executors.newCachedThreadPool();

    @BeforeEach
    void start() throws IOException {
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() {
        background.shutdownNow();
        http.close();
        server.close();
    }

    String url(String path) {
        return server.url(path).toString();
    }

    String hostPort() {
        return server.getHostName() + ":" + server.getPort();
    }

    static Map<String, Object> payload(Object... keysAndValues) {
        Map<String, Object> payload = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            payload.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return payload;
    }

    ExecutionResult call(Map<String, Object> payload) {
        return http.execute(anAttempt().withPayload(payload).build());
    }

    RecordedRequest taken() throws InterruptedException {
        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request).as("a request reached the server").isNotNull();
        return request;
    }

    static MockResponse respond(int code, String body) {
        return new MockResponse.Builder().code(code).body(body).build();
    }

    @Nested
    class Status {
        @Test
        void a200IsASuccessWhoseOutputIsTheStatusLineAndTheBody() throws Exception {
            server.enqueue(respond(200, "hello"));

            ExecutionResult result = call(payload("url", url("/hook")));

            assertThat(result).isEqualTo(ExecutionResult.succeeded("HTTP 200 OK\nhello"));
            RecordedRequest request = taken();
            assertThat(request.getMethod()).isEqualTo("POST");
            assertThat(request.getTarget()).isEqualTo("/hook");
            assertThat(request.getBodySize()).isZero();
        }

        @Test
        void a500FailsWithTheStatusLineAsErrorAndKeepsTheBody() {
            server.enqueue(respond(500, "boom"));

            ExecutionResult result = call(payload("url", url("/")));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo("HTTP 500 Internal Server Error");
            assertThat(result.output()).isEqualTo("HTTP 500 Internal Server Error\nboom");
        }

        @Test
        void a404ListedInExpectedStatusIsASuccess() {
            server.enqueue(respond(404, ""));

            ExecutionResult result = call(payload("url", url("/gone"), "method", "DELETE", "expected_status", List.of(204, 404)));

            assertThat(result).isEqualTo(ExecutionResult.succeeded("HTTP 404 Not Found"));
        }

        @Test
        void a200NotListedInExpectedStatusFails() {
            server.enqueue(respond(200, ""));

            ExecutionResult result = call(payload("url", url("/"), "expected_status", List.of(201)));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo("HTTP 200 OK (permanent: not in payload.retry_on_status)");
            assertThat(result.permanent()).isTrue();
        }

        @Test
        void aHeadRequestRecordsOnlyTheStatusLine() throws Exception {
            server.enqueue(new MockResponse.Builder().code(200).setHeader("Content-Length", 1234).build());

            ExecutionResult result = call(payload("url", url("/"), "method", "HEAD"));

            assertThat(result).isEqualTo(ExecutionResult.succeeded("HTTP 200 OK"));
            assertThat(taken().getMethod()).isEqualTo("HEAD");
        }

        @Test
        void callsShareOnePooledConnection() throws Exception {
            for (int i = 0; i < 3; i++) {
                server.enqueue(respond(200, "ok"));
                assertThat(call(payload("url", url("/" + i))).outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            }

            List<Integer> connections = List.of(taken().getConnectionIndex(), taken().getConnectionIndex(),
                    taken().getConnectionIndex());
            assertThat(connections).containsOnly(connections.get(0));
        }
    }

    @Nested
    class FailureSemantics {
        @ParameterizedTest
        @ValueSource(ints = {400, 401, 403, 404, 409, 410, 422, 501})
        void aFailingStatusOutsideTheDefaultRetryListIsPermanent(int code) {
            server.enqueue(respond(code, "no"));

            ExecutionResult result = call(payload("url", url("/hook")));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isTrue();
            assertThat(result.error()).startsWith("HTTP " + code).endsWith("(permanent: not in payload.retry_on_status)");
            assertThat(result.retryAfter()).isNull();
        }

        @ParameterizedTest
        @ValueSource(ints = {408, 425, 429, 500, 502, 503, 504})
        void theDefaultRetryListIsRetriedWithoutARetryAfter(int code) {
            server.enqueue(respond(code, ""));
            server.enqueue(respond(code, "")); // OkHttp itself repeats a request once after a 408

            ExecutionResult result = call(payload("url", url("/hook")));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isFalse();
            assertThat(result.retryAfter()).isNull();
        }

        @Test
        void retryOnStatusReplacesTheDefaultList() {
            server.enqueue(respond(404, ""));
            server.enqueue(respond(500, ""));

            ExecutionResult notFound = call(payload("url", url("/"), "retry_on_status", List.of(404)));
            ExecutionResult serverError = call(payload("url", url("/"), "retry_on_status", List.of(404)));

            assertThat(notFound.permanent()).isFalse();
            assertThat(serverError.permanent()).isTrue();
        }

        @Test
        void anEmptyRetryListMakesEveryFailingStatusPermanent() {
            server.enqueue(respond(503, ""));

            assertThat(call(payload("url", url("/"), "retry_on_status", List.of())).permanent()).isTrue();
        }

        @Test
        void a503WithRetryAfterInSecondsCarriesTheWait() {
            server.enqueue(new MockResponse.Builder().code(503).setHeader("Retry-After", "120").build());

            ExecutionResult result = call(payload("url", url("/")));

            assertThat(result.permanent()).isFalse();
            assertThat(result.retryAfter()).isEqualTo(Duration.ofSeconds(120));
            assertThat(result.error()).isEqualTo("HTTP 503 Service Unavailable (Retry-After: 120s)");
        }

        @Test
        void a429WithRetryAfterAsAnHttpDateIsMeasuredFromTheResponsesDate() {
            server.enqueue(new MockResponse.Builder().code(429)
                    .setHeader("Date", "Tue, 01 Dec 2026 10:00:00 GMT")
                    .setHeader("Retry-After", "Tue, 01 Dec 2026 10:01:30 GMT").build());

            ExecutionResult result = call(payload("url", url("/")));

            assertThat(result.retryAfter()).isEqualTo(Duration.ofSeconds(90));
            assertThat(result.error()).isEqualTo("HTTP 429 Too Many Requests (Retry-After: 90s)");
        }

        @Test
        void aRetryAfterOnAnotherStatusOrUnreadableIsIgnored() {
            server.enqueue(new MockResponse.Builder().code(500).setHeader("Retry-After", "5").build());
            server.enqueue(new MockResponse.Builder().code(503).setHeader("Retry-After", "soon").build());

            assertThat(call(payload("url", url("/"))).retryAfter()).isNull();
            ExecutionResult unreadable = call(payload("url", url("/")));
            assertThat(unreadable.retryAfter()).isNull();
            assertThat(unreadable.permanent()).isFalse();
        }

        @Test
        void aSnoozeHeaderSnoozesWhateverTheStatusAndAGiveUpHeaderGivesUp() {
            server.enqueue(new MockResponse.Builder().code(202).setHeader("X-ForgeFlow-Snooze-Seconds", "45").build());
            server.enqueue(new MockResponse.Builder().code(409).setHeader("X-ForgeFlow-Give-Up", "account closed")
                    .build());

            ExecutionResult snoozed = call(payload("url", url("/")));
            ExecutionResult gaveUp = call(payload("url", url("/")));

            assertThat(snoozed.outcome()).isEqualTo(AttemptOutcome.SNOOZED);
            assertThat(snoozed.snooze()).isEqualTo(Duration.ofSeconds(45));
            assertThat(snoozed.output()).isEqualTo("HTTP 202 Accepted");
            assertThat(gaveUp.outcome()).isEqualTo(AttemptOutcome.GAVE_UP);
            assertThat(gaveUp.error()).isEqualTo("gave up: account closed");
        }

        @Test
        void aConnectionErrorIsRetried() throws IOException {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }

            ExecutionResult result = call(payload("url", "http://127.0.0.1:" + port + "/"));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isFalse();
        }

        @Test
        void aPayloadThatFailsValidationAtRunTimeIsPermanent() {
            ExecutionResult result = call(payload("url", url("/"), "retry_on_status", List.of("503")));

            assertThat(result.permanent()).isTrue();
            assertThat(result.error()).startsWith("invalid payload: payload.retry_on_status must be a whole number");
        }
    }

    @Nested
    class Request {
        @Test
        void sendsTheHeadersAndTheJsonBodyExactly() throws Exception {
            server.enqueue(respond(201, ""));
            Map<String, Object> body = Map.of("name", "nightly \u00e9\u20ac", "count", 3, "ratio", 1.5,
                    "tags", Arrays.asList("a", null, true), "nested", Map.of("x", List.of()));

            ExecutionResult result = http.execute(anAttempt().withIds("run-9", "job-4", 2).withPayload(payload(
                    "url", url("/items?v=1"), "method", "PUT",
                    "headers", Map.of("Authorization", "Bearer s3cret", "X-Trace", "abc 123"), "body", body)).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            RecordedRequest request = taken();
            assertThat(request.getMethod()).isEqualTo("PUT");
            assertThat(request.getTarget()).isEqualTo("/items?v=1");
            assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer s3cret");
            assertThat(request.getHeaders().get("X-Trace")).isEqualTo("abc 123");
            assertThat(request.getHeaders().get("Content-Type")).isEqualTo("application/json");
            assertThat(request.getHeaders().get("X-ForgeFlow-Run-Id")).isEqualTo("run-9");
            assertThat(request.getHeaders().get("X-ForgeFlow-Job-Id")).isEqualTo("job-4");
            assertThat(request.getHeaders().get("X-ForgeFlow-Attempt")).isEqualTo("2");
            assertThat(request.getHeaders().get("User-Agent")).isEqualTo("ForgeFlow");
            assertThat(JSON.readTree(request.getBody().utf8())).isEqualTo(JSON.valueToTree(body));
        }

        @Test
        void sendsAStringBodyAsItIsAsPlainText() throws Exception {
            server.enqueue(respond(200, ""));

            call(payload("url", url("/"), "body", "caf\u00e9 {not json"));

            RecordedRequest request = taken();
            assertThat(request.getHeaders().get("Content-Type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(request.getBody().utf8()).isEqualTo("caf\u00e9 {not json");
        }

        @Test
        void letsAContentTypeHeaderWinForStringAndJsonBodies() throws Exception {
            server.enqueue(respond(200, ""));
            server.enqueue(respond(200, ""));

            call(payload("url", url("/"), "headers", Map.of("content-type", "application/xml"), "body", "<a/>"));
            call(payload("url", url("/"), "headers", Map.of("Content-Type", "application/vnd.api+json"), "body", List.of(1)));

            RecordedRequest xml = taken();
            assertThat(xml.getHeaders().values("Content-Type")).containsExactly("application/xml");
            assertThat(xml.getBody().utf8()).isEqualTo("<a/>");
            RecordedRequest json = taken();
            assertThat(json.getHeaders().values("Content-Type")).containsExactly("application/vnd.api+json");
            assertThat(json.getBody().utf8()).isEqualTo("[1]");
        }

        @ParameterizedTest
        @ValueSource(strings = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"})
        void usesTheGivenMethod(String method) throws Exception {
            server.enqueue(respond(200, ""));

            assertThat(call(payload("url", url("/"), "method", method.toLowerCase())).outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);

            assertThat(taken().getMethod()).isEqualTo(method);
        }
    }

    @Nested
    class Redirects {
        @Test
        void areFollowedForGet() throws Exception {
            server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/final").build());
            server.enqueue(respond(200, "arrived"));

            ExecutionResult result = call(payload("url", url("/start"), "method", "GET"));

            assertThat(result).isEqualTo(ExecutionResult.succeeded("HTTP 200 OK\narrived"));
            assertThat(taken().getTarget()).isEqualTo("/start");
            assertThat(taken().getTarget()).isEqualTo("/final");
        }

        @Test
        void areNotFollowedForPostSoThatTheSideEffectIsNotRepeatedElsewhere() throws Exception {
            server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/final").build());
            server.enqueue(respond(200, "must not be reached"));

            ExecutionResult result = call(payload("url", url("/start"), "body", Map.of("a", 1)));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo("HTTP 302 Found (permanent: not in payload.retry_on_status)");
            assertThat(taken().getTarget()).isEqualTo("/start");
            assertThat(server.getRequestCount()).isEqualTo(1);
        }
    }

    @Nested
    class LargeBodies {
        @Test
        void aTenMebibyteBodyIsStreamedAndOnlyItsHeadKept() {
            long size = 10L * 1024 * 1024;
            server.enqueue(new MockResponse.Builder().code(200).body(new MockResponseBody() {
                @Override
                public long getContentLength() {
                    return size;
                }

                @Override
                public void writeTo(BufferedSink sink) throws IOException {
                    byte[] chunk = "0123456789abcdef".repeat(512).getBytes(StandardCharsets.US_ASCII);
                    for (long written = 0; written < size; written += chunk.length) {
                        sink.write(chunk);
                    }
                }
            }).build());

            long start = System.nanoTime();
            ExecutionResult result = http.execute(anAttempt().withPayload(payload("url", url("/big"), "method", "GET"))
                    .withMaxOutputBytes(64 * 1024).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            String output = result.output();
            assertThat(output).startsWith("HTTP 200 OK\n0123456789abcdef0123").matches("(?s).*\n\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\]");
            assertThat(output.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(64 * 1024).isGreaterThan(64 * 1024 - 100);
            String marker = output.substring(output.lastIndexOf('\n'));
            String body = output.substring("HTTP 200 OK\n".length(), output.length() - marker.length());
            assertThat(Long.parseLong(marker.replaceAll("\\D", "")) + body.length()).isEqualTo(size);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a ceiling only a hang misses")
                    .isLessThan(Duration.ofSeconds(30));
        }

        @Test
        void aChunkedBodyOfUnknownLengthSaysWhereItWasCut() {
            server.enqueue(new MockResponse.Builder().code(200).chunkedBody("x".repeat(5000), 700).build());

            ExecutionResult result = http.execute(anAttempt().withPayload(payload("url", url("/"), "method", "GET"))
                    .withMaxOutputBytes(1000).build());

            assertThat(result.output()).startsWith("HTTP 200 OK\nxxx").endsWith(" bytes ...]").contains("\n[... truncated after ");
            assertThat(result.output().length()).isLessThanOrEqualTo(1000);
        }
    }

    @Nested
    class ConnectionFailures {
        @Test
        void aClosedPortFailsAsConnectionRefused() throws IOException {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                port = socket.getLocalPort();
            }

            ExecutionResult result = call(payload("url", "http://127.0.0.1:" + port + "/"));

            assertThat(result).isEqualTo(ExecutionResult.failed("", "connection refused by 127.0.0.1:" + port));
        }

        @Test
        void anUnknownHostFailsAsADnsError() {
            ExecutionResult result = call(payload("url", "http://nonexistent.invalid/hook"));

            assertThat(result).isEqualTo(ExecutionResult.failed("", "DNS lookup failed: unknown host nonexistent.invalid"));
        }

        @Test
        void httpsToAPlainHttpServerFailsAsATlsError() throws Exception {
            // a plain-text server that answers at once, whatever it receives: the TLS handshake reads a non-TLS reply
            // (MockWebServer instead waits for a request line that never comes, and the call times out)
            try (ServerSocket plain = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                Thread server = new Thread(() -> {
                    try (java.net.Socket s = plain.accept()) {
                        s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                        s.getOutputStream().flush();
                    } catch (IOException ignored) {
                        // the client went away
                    }
                }, "plain-http");
                server.setDaemon(true);
                server.start();
                String hostPort = "127.0.0.1:" + plain.getLocalPort();

                ExecutionResult result = call(payload("url", "https://" + hostPort + "/"));

                assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
                assertThat(result.error()).startsWith("TLS error with " + hostPort + ": ");
            }
        }

        @Test
        void aSilentServerFailsAsAReadTimeoutWhenOneIsConfigured() {
            HttpRunExecutor impatient = new HttpRunExecutor(HttpRunExecutor.Settings.defaults()
                    .withReadTimeout(Duration.ofMillis(200)));
            server.enqueue(new MockResponse.Builder().code(200).headersDelay(5, TimeUnit.SECONDS).build());
            try {
                ExecutionResult result = impatient.execute(anAttempt().withPayload(payload("url", url("/"))).build());

                assertThat(result).isEqualTo(ExecutionResult.failed("", "read timed out after 0.2s waiting for " + hostPort()));
            } finally {
                impatient.close();
            }
        }
    }

    @Nested
    class Timeout {
        @Test
        void aServerSlowerThanTheTimeoutTimesTheAttemptOut() {
            server.enqueue(new MockResponse.Builder().code(200).headersDelay(10, TimeUnit.SECONDS).build());

            long start = System.nanoTime();
            ExecutionResult result = http.execute(anAttempt().withTimeout(Duration.ofMillis(300))
                    .withPayload(payload("url", url("/"))).build());

            assertThat(result).isEqualTo(ExecutionResult.timedOut("", "timed out after 0.3s; HTTP call to " + hostPort() + " aborted"));
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("ended by the 0.3 s timeout, before the server's headers (10 s)").isLessThan(Duration.ofSeconds(8));
        }

        @Test
        void theTimeoutBoundsTheDownloadOfTheBodyToo() {
            server.enqueue(new MockResponse.Builder().code(200).body("x".repeat(1000))
                    .throttleBody(10, 100, TimeUnit.MILLISECONDS).build());

            ExecutionResult result = http.execute(anAttempt().withTimeout(Duration.ofMillis(400))
                    .withPayload(payload("url", url("/"), "method", "GET")).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
        }
    }

    @Nested
    class Cancelling {
        @Test
        void cancellationAbortsTheCallInFlight() throws Exception {
            server.enqueue(new MockResponse.Builder().code(200).headersDelay(30, TimeUnit.SECONDS).build());
            Cancellation cancellation = new Cancellation();
            ExecutionContext context = anAttempt().withCancellation(cancellation).withTimeout(Duration.ofMinutes(5))
                    .withPayload(payload("url", url("/slow"))).build();
            CompletableFuture<ExecutionResult> running = CompletableFuture.supplyAsync(() -> http.execute(context), background);
            taken();

            cancellation.cancel("operator");

            assertThat(running.get(5, TimeUnit.SECONDS))
                    .isEqualTo(ExecutionResult.cancelled("", "cancelled (operator); HTTP call to " + hostPort() + " aborted"));
        }
    }

    @Nested
    class Secrets {
        final Logger logger = (Logger) LoggerFactory.getLogger("io.forgeflow");
        final ListAppender<ILoggingEvent> logged = new ListAppender<>();

        @BeforeEach
        void captureLogs() {
            logger.setLevel(Level.TRACE);
            logger.setAdditive(false); // captured here, not printed
            logged.start();
            logger.addAppender(logged);
        }

        @AfterEach
        void releaseLogs() {
            logger.detachAppender(logged);
            logger.setLevel(Level.INFO);
            logger.setAdditive(true);
        }

        @Test
        void neitherTheAuthorizationHeaderNorAQueryTokenIsEverLoggedOrReported() throws IOException {
            int closedPort;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                closedPort = socket.getLocalPort();
            }
            server.enqueue(respond(200, "fine"));
            server.enqueue(respond(500, "broken"));
            Map<String, Object> headers = Map.of("Authorization", "Bearer s3cret-header");
            List<ExecutionResult> results = List.of(
                    call(payload("url", url("/a?token=s3cret-query"), "headers", headers)),
                    call(payload("url", url("/b?token=s3cret-query"), "headers", headers)),
                    call(payload("url", "http://127.0.0.1:" + closedPort + "/c?token=s3cret-query", "headers", headers)),
                    call(payload("url", "http://user:s3cret-password@nonexistent.invalid/", "headers", headers)));

            assertThat(logged.list).isNotEmpty();
            String everything = logged.list.stream()
                    .map(e -> e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy())))
                    .collect(Collectors.joining("\n"))
                    + results.stream().map(r -> r.output() + r.error()).collect(Collectors.joining("\n"));
            assertThat(everything).doesNotContain("s3cret");
        }
    }
}
