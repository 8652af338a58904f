package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A test client of {@code GET /api/events}: parses the stream on a thread of its own into a queue of events. */
final class SseClient implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    final int status;
    final String contentType;
    final AtomicInteger comments = new AtomicInteger();
    /** Set when the server ended the stream (or it failed). */
    volatile boolean ended;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final Stream<String> lines;
    private final Thread reader;

    /** One event: its id, type ({@code message} when unnamed) and JSON data. */
    record Event(String id, String type, JsonNode data) {
        String runId() {
            return data.path("run_id").asText(null);
        }

        String status() {
            return data.path("status").asText(null);
        }
    }

    private SseClient(HttpResponse<Stream<String>> response) {
        this.status = response.statusCode();
        this.contentType = response.headers().firstValue("Content-Type").orElse("");
        this.lines = response.body();
        this.reader = new Thread(this::read, "sse-test-client");
        reader.setDaemon(true);
        reader.start();
    }

    /** Connects (returns once the response headers arrived), resuming after {@code lastEventId} when not null. */
    static SseClient connect(URI uri, String lastEventId) throws IOException, InterruptedException {
        return connect(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), uri, lastEventId);
    }

    /** Connects with a client of the caller's (many streams on one client share its threads). */
    static SseClient connect(HttpClient http, URI uri, String lastEventId) throws IOException, InterruptedException {
        return connect(http, uri, lastEventId, java.util.Map.of());
    }

    /** Connects with these request headers too (a token, a tenant). */
    static SseClient connect(HttpClient http, URI uri, String lastEventId, java.util.Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(30));
        headers.forEach(request::header);
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        return new SseClient(http.send(request.GET().build(), HttpResponse.BodyHandlers.ofLines()));
    }

    /** The next event, waiting at most {@code max}; fails when none comes. */
    Event next(Duration max) throws InterruptedException {
        Event event = events.poll(max.toMillis(), TimeUnit.MILLISECONDS);
        if (event == null) {
            throw new AssertionError("no event within " + max);
        }
        return event;
    }

    /** Events until (and including) the first that matches, waiting at most {@code max} in all. */
    List<Event> until(Predicate<Event> last, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        List<Event> seen = new ArrayList<>();
        while (true) {
            long left = deadline - System.nanoTime();
            Event event = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
            if (event == null) {
                throw new AssertionError("no matching event within " + max + "; saw " + seen);
            }
            seen.add(event);
            if (last.test(event)) {
                return seen;
            }
        }
    }

    /** Whether an event arrives within {@code max} (waits that long when none does). */
    Event poll(Duration max) throws InterruptedException {
        return events.poll(max.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void read() {
        String id = null;
        String type = null;
        StringBuilder data = new StringBuilder();
        try {
            Iterator<String> it = lines.iterator();
            while (it.hasNext()) {
                String line = it.next();
                if (line.isEmpty()) {
                    if (data.length() > 0) {
                        events.add(new Event(id, type == null ? "message" : type, JSON.readTree(data.toString())));
                    }
                    type = null;
                    data.setLength(0);
                } else if (line.startsWith(":")) {
                    comments.incrementAndGet();
                } else if (line.startsWith("id:")) {
                    id = line.substring(3).trim();
                } else if (line.startsWith("event:")) {
                    type = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    data.append(line.substring(5).trim());
                }
            }
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            // the stream failed or was closed
        } finally {
            ended = true;
        }
    }

    @Override
    public void close() {
        lines.close();
        reader.interrupt();
    }
}
