package io.forgeflow.client;

import com.fasterxml.jackson.databind.JsonNode;
import okhttp3.Call;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One subscription to {@code GET /api/events} on its own daemon thread: reads Server-Sent Events
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html), reconnects after network failures and 5xx with
 * {@code Last-Event-ID}, and stops for good on a 4xx (a server without the route answers 404).
 */
final class EventStream implements EventSubscription {
    private static final System.Logger LOG = System.getLogger(EventStream.class.getName());
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ForgeFlowClient client;
    private final RunEventListener listener;
    private final Object lock = new Object();
    private final Thread thread;
    private volatile boolean closed;
    private volatile Call current;
    private volatile String lastEventId;
    private long retryMillis;

    EventStream(ForgeFlowClient client, RunEventListener listener, Duration retry) {
        this.client = client;
        this.listener = listener;
        this.retryMillis = Math.max(0, retry.toMillis());
        this.thread = new Thread(this::loop, "forgeflow-events-" + THREADS.incrementAndGet());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Override
    public boolean isActive() {
        return !closed && thread.isAlive();
    }

    @Override
    public String lastEventId() {
        return lastEventId;
    }

    @Override
    public void close() {
        closed = true;
        Call call = current;
        if (call != null) {
            call.cancel();
        }
        synchronized (lock) {
            lock.notifyAll();
        }
        client.forget(this);
    }

    private void loop() {
        try {
            while (!closed && connectOnce()) {
                pause();
            }
        } finally {
            client.forget(this);
        }
    }

    /** One connection; true when the subscription should reconnect. */
    private boolean connectOnce() {
        Request.Builder request = new Request.Builder().url(client.url("api/events"))
                .header("Accept", "text/event-stream")
                .header("Cache-Control", "no-cache");
        String resumeFrom = lastEventId;
        if (resumeFrom != null) {
            request.header("Last-Event-ID", resumeFrom);
        }
        Call call = client.streamingHttp().newCall(request.build());
        current = call;
        if (closed) {
            call.cancel();
            return false;
        }
        try (Response response = call.execute()) {
            if (!response.isSuccessful()) {
                ResponseBody body = response.body();
                ForgeFlowApiException error = client.apiError(response.code(), response.message(),
                        body == null ? "" : body.string());
                boolean retrying = response.code() >= 500 || response.code() == 408 || response.code() == 429;
                notifyFailure(error, retrying);
                return retrying;
            }
            notifyOpen();
            read(response.body().source());
            return !closed;
        } catch (IOException e) {
            if (closed) {
                return false;
            }
            notifyFailure(client.unavailable(e), true);
            return true;
        }
    }

    private void read(BufferedSource source) throws IOException {
        StringBuilder data = new StringBuilder();
        boolean hasData = false;
        String type = null;
        String idBuffer = lastEventId;
        String line;
        while (!closed && (line = source.readUtf8Line()) != null) {
            if (line.isEmpty()) {
                lastEventId = idBuffer;
                if (hasData) {
                    dispatch(idBuffer, type == null || type.isEmpty() ? "message" : type, data.toString());
                }
                data.setLength(0);
                hasData = false;
                type = null;
                continue;
            }
            if (line.startsWith(":")) {
                continue; // a comment, e.g. a keep-alive
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "data" -> {
                    if (hasData) {
                        data.append('\n');
                    }
                    data.append(value);
                    hasData = true;
                }
                case "event" -> type = value;
                case "id" -> {
                    if (value.indexOf('\0') < 0) {
                        idBuffer = value;
                    }
                }
                case "retry" -> {
                    if (!value.isEmpty() && value.chars().allMatch(Character::isDigit) && value.length() < 10) {
                        retryMillis = Long.parseLong(value);
                    }
                }
                default -> {
                    // unknown fields are ignored, as the SSE specification says
                }
            }
        }
    }

    private void dispatch(String id, String type, String data) {
        RunEvent event = parse(id, type, data);
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "event listener failed on event " + id, e);
        }
    }

    private RunEvent parse(String id, String type, String data) {
        try {
            JsonNode tree = client.json().readTree(data);
            if (tree == null || !tree.isObject()) {
                return new RunEvent(id, type, null, null, null, null, null, data);
            }
            String runId = text(tree, "run_id");
            if (runId == null && tree.has("job_id")) {
                runId = text(tree, "id"); // the data is a run object
            }
            String at = firstText(tree, "at", "occurred_at", "updated_at", "finished_at", "started_at");
            return new RunEvent(id, type, runId, text(tree, "job_id"), text(tree, "status"),
                    firstText(tree, "previous_status", "from"), instant(at), data);
        } catch (IOException notJson) {
            return new RunEvent(id, type, null, null, null, null, null, data);
        }
    }

    private static String firstText(JsonNode tree, String... names) {
        for (String name : names) {
            String value = text(tree, name);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    private static String text(JsonNode tree, String name) {
        JsonNode node = tree.get(name);
        return node == null || node.isNull() || node.isContainerNode() ? null : node.asText();
    }

    private static Instant instant(String text) {
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private void notifyOpen() {
        try {
            listener.onOpen();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "event listener failed on open", e);
        }
    }

    private void notifyFailure(ForgeFlowException failure, boolean retrying) {
        try {
            listener.onFailure(failure, retrying);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "event listener failed on failure", e);
        }
    }

    /** Waits retryMillis before reconnecting, returning at once when closed. */
    private void pause() {
        long deadline = System.nanoTime() + Duration.ofMillis(retryMillis).toNanos();
        synchronized (lock) {
            long left;
            while (!closed && (left = deadline - System.nanoTime()) > 0) {
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    closed = true;
                }
            }
        }
    }
}
