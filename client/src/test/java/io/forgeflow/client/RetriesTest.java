package io.forgeflow.client;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the client sends again, against a real HTTP server on loopback that answers 503 (a node whose database is
 * away) and then 200: reads always, submissions with an idempotency key, no other write. (The 503s say
 * {@code Retry-After: 1}: OkHttp itself repeats a 503 with {@code Retry-After: 0} once, whatever the method.)
 */
@Timeout(60)
class RetriesTest {
    static final String JOB = """
            {"id": "job_1", "name": "n", "executor": "shell", "payload": {"command": "true"},
             "idempotency_key": "k1", "status": "active", "created_at": "2026-07-01T09:30:00Z",
             "updated_at": "2026-07-01T09:30:00Z"}""";
    static final String UNAVAILABLE = "{\"error\": \"the database is unavailable\", \"code\": \"unavailable\"}";
    static final String STATS = "{\"runs\": {}}";

    MockWebServer server;
    ForgeFlowClient client;

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start();
        client = ForgeFlowClient.builder(server.url("/").toString())
                .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    void unavailable(String retryAfter) {
        MockResponse.Builder r = new MockResponse.Builder().code(503).setHeader("Content-Type", "application/json")
                .body(UNAVAILABLE);
        if (retryAfter != null) {
            r.setHeader("Retry-After", retryAfter);
        }
        server.enqueue(r.build());
    }

    void answer(int code, String body) {
        server.enqueue(new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json")
                .body(body).build());
    }

    @Test
    void aReadAnswered503IsSentAgainUntilItSucceeds() throws Exception {
        unavailable("1");
        unavailable(null);
        answer(200, STATS);

        assertThat(client.stats()).isNotNull();

        assertThat(server.getRequestCount()).isEqualTo(3);
    }

    @Test
    void aSubmissionWithAnIdempotencyKeyIsSentAgainWithTheSameBody() throws Exception {
        unavailable("1");
        answer(201, JOB);

        SubmitResult result = client.submitJob(JobRequest.shell("n", "true").idempotencyKey("k1").build());

        assertThat(result.created()).isTrue();
        RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
        RecordedRequest second = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(second.getMethod()).isEqualTo("POST");
        assertThat(second.getBody().utf8()).isEqualTo(first.getBody().utf8()).contains("\"idempotency_key\":\"k1\"");
    }

    @Test
    void aSubmissionWithoutAKeyIsNotSentAgainAndReportsThe503() {
        unavailable("1");
        answer(201, JOB);

        assertThatThrownBy(() -> client.submitJob(JobRequest.shell("n", "true").build()))
                .isInstanceOfSatisfying(ForgeFlowApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.error()).contains("database is unavailable");
                });
        assertThat(server.getRequestCount()).as("a write that may have been stored is not repeated").isEqualTo(1);
    }

    @Test
    void otherWritesAreNotSentAgain() {
        unavailable("1");
        answer(200, JOB);

        assertThatThrownBy(() -> client.pauseJob("job_1")).isInstanceOf(ForgeFlowApiException.class);
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void retriesAreBoundedAndTheLast503IsReported() {
        try (ForgeFlowClient twice = ForgeFlowClient.builder(server.url("/").toString()).retries(2)
                .retryBackoff(Duration.ZERO, Duration.ZERO).build()) {
            for (int i = 0; i < 4; i++) {
                unavailable("1");
            }

            assertThatThrownBy(twice::stats).isInstanceOfSatisfying(ForgeFlowApiException.class,
                    e -> assertThat(e.status()).isEqualTo(503));
            assertThat(server.getRequestCount()).isEqualTo(3);
        }
    }

    @Test
    void retryAfterIsWaitedForUpToTheCap() {
        try (ForgeFlowClient patient = ForgeFlowClient.builder(server.url("/").toString())
                .retryBackoff(Duration.ZERO, Duration.ofSeconds(1)).build()) {
            unavailable("30");
            answer(200, STATS);
            long start = System.nanoTime();

            assertThat(patient.stats()).isNotNull();

            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waitedMillis).as("Retry-After 30 s, capped at 1 s").isBetween(1_000L, 20_000L);
        }
    }

    @Test
    void readinessIsAskedOnceItsNotReadyIsAnAnswer() {
        unavailable("1");

        assertThat(client.ready().ready()).isFalse();
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    /** Closes the first connections it accepts without answering, then answers every request 200 with a body. */
    static final class DroppingServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger connections = new AtomicInteger();
        final Thread thread;

        DroppingServer(int dropped, String body) throws IOException {
            thread = new Thread(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                                StandardCharsets.ISO_8859_1));
                        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                            // the request's head; a GET or a keyed POST's body is not needed
                        }
                        if (connections.incrementAndGet() <= dropped) {
                            continue; // closed without an answer
                        }
                        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                        OutputStream out = s.getOutputStream();
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.write(bytes);
                        out.flush();
                    } catch (IOException closed) {
                        // the test ended, or the client went away
                    }
                }
            }, "dropping-server");
            thread.setDaemon(true);
            thread.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void aReadWhoseConnectionBrokeBeforeAnAnswerIsSentAgain() throws Exception {
        try (DroppingServer dropping = new DroppingServer(2, STATS);
             ForgeFlowClient c = ForgeFlowClient.builder(dropping.url())
                     .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(10)).build()) {
            assertThat(c.stats()).isNotNull();
            assertThat(dropping.connections.get()).isEqualTo(3);
        }
    }

    @Test
    void aWriteWithoutKeyWhoseConnectionBrokeIsReportedUnavailable() throws Exception {
        try (DroppingServer dropping = new DroppingServer(1, JOB);
             ForgeFlowClient c = ForgeFlowClient.builder(dropping.url())
                     .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(10)).build()) {
            assertThatThrownBy(() -> c.pauseJob("job_1")).isInstanceOf(ForgeFlowUnavailableException.class);
            assertThat(dropping.connections.get()).isEqualTo(1);
        }
    }
}
