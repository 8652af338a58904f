package io.forgeflow.client;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The SSE subscription of GET /api/events: parsing, reconnection with Last-Event-ID, and a server without the route. */
class EventsTest {
    MockWebServer server;
    ForgeFlowClient client;
    final BlockingQueue<Object> heard = new LinkedBlockingQueue<>();

    record Failure(ForgeFlowException failure, boolean retrying) {
    }

    final RunEventListener listener = new RunEventListener() {
        @Override
        public void onEvent(RunEvent event) {
            heard.add(event);
        }

        @Override
        public void onOpen() {
            heard.add("open");
        }

        @Override
        public void onFailure(ForgeFlowException failure, boolean retrying) {
            heard.add(new Failure(failure, retrying));
        }
    };

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start();
        client = ForgeFlowClient.builder(server.url("/").toString()).token("t0ken")
                .eventRetry(Duration.ofMillis(10)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    void stream(String body) {
        server.enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type", "text/event-stream")
                .body(body).build());
    }

    Object next() throws InterruptedException {
        Object item = heard.poll(5, TimeUnit.SECONDS);
        assertThat(item).as("a callback within 5 s").isNotNull();
        return item;
    }

    static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 5 s").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @Test
    void eventsAreParsedFromTheStream() throws Exception {
        stream("""
                : keep-alive comment
                retry: 10
                id: 41
                event: run
                data: {"run_id": "r1", "job_id": "j1", "status": "running", "previous_status": "pending",
                data:  "at": "2026-07-01T09:30:00Z"}

                id: 42
                data: {"id": "r2", "job_id": "j1", "status": "dead", "updated_at": "2026-07-01T09:31:00+02:00"}

                data: not json

                """);

        try (EventSubscription subscription = client.subscribe(listener)) {
            assertThat(next()).isEqualTo("open");
            RunEvent first = (RunEvent) next();
            assertThat(first.id()).isEqualTo("41");
            assertThat(first.type()).isEqualTo("run");
            assertThat(first.runId()).isEqualTo("r1");
            assertThat(first.jobId()).isEqualTo("j1");
            assertThat(first.status()).isEqualTo("running");
            assertThat(first.previousStatus()).isEqualTo("pending");
            assertThat(first.at()).isEqualTo(Instant.parse("2026-07-01T09:30:00Z"));
            RunEvent second = (RunEvent) next();
            assertThat(second.type()).isEqualTo("message");
            assertThat(second.runId()).isEqualTo("r2");
            assertThat(second.status()).isEqualTo("dead");
            assertThat(second.at()).isEqualTo(Instant.parse("2026-07-01T07:31:00Z"));
            RunEvent third = (RunEvent) next();
            assertThat(third.id()).isEqualTo("42");
            assertThat(third.runId()).isNull();
            assertThat(third.data()).isEqualTo("not json");
            assertThat(subscription.lastEventId()).isEqualTo("42");
        }

        RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(r.getMethod()).isEqualTo("GET");
        assertThat(r.getTarget()).isEqualTo("/api/events");
        assertThat(r.getHeaders().get("Accept")).isEqualTo("text/event-stream");
        assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer t0ken");
        assertThat(r.getHeaders().get("Last-Event-ID")).isNull();
    }

    @Test
    void aDroppedStreamReconnectsWithTheLastEventId() throws Exception {
        stream("id: 7\ndata: {\"run_id\": \"r1\", \"status\": \"running\"}\n\n");
        stream("id: 8\ndata: {\"run_id\": \"r1\", \"status\": \"succeeded\"}\n\n");

        try (EventSubscription ignored = client.events(heard::add)) {
            assertThat(((RunEvent) next()).id()).isEqualTo("7");
            assertThat(((RunEvent) next()).status()).isEqualTo("succeeded");
        }

        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Last-Event-ID")).isNull();
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Last-Event-ID")).isEqualTo("7");
    }

    @Test
    void aServerErrorIsReportedAndRetried() throws Exception {
        server.enqueue(new MockResponse.Builder().code(503).body("{\"error\": \"starting\"}").build());
        stream("data: {\"run_id\": \"r1\"}\n\n");

        try (EventSubscription ignored = client.subscribe(listener)) {
            Failure failure = (Failure) next();
            assertThat(failure.retrying()).isTrue();
            assertThat(((ForgeFlowApiException) failure.failure()).status()).isEqualTo(503);
            assertThat(next()).isEqualTo("open");
            assertThat(((RunEvent) next()).runId()).isEqualTo("r1");
        }
    }

    @Test
    void aServerWithoutTheRouteStopsTheSubscriptionWithA404() throws Exception {
        server.enqueue(new MockResponse.Builder().code(404).body("{\"error\": \"HTTP 404 Not Found\"}").build());

        EventSubscription subscription = client.subscribe(listener);

        Failure failure = (Failure) next();
        assertThat(failure.retrying()).isFalse();
        assertThat(failure.failure()).isInstanceOfSatisfying(ForgeFlowApiException.class,
                e -> assertThat(e.isNotFound()).isTrue());
        await(() -> !subscription.isActive());
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @Test
    void closingStopsTheStreamAndItsThread() {
        stream(""); // the stream ends at once; the reconnect then waits on an empty queue until closed

        EventSubscription subscription = client.events(heard::add);
        await(() -> server.getRequestCount() >= 2);
        subscription.close();

        await(() -> !subscription.isActive());
    }
}
