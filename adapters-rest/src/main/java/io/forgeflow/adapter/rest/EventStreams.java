package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.domain.run.RunChange;
import org.glassfish.jersey.server.ChunkedOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The open Server-Sent Event streams of {@code GET /api/events}, fed by a {@link RunEventFeed}.
 *
 * <p>Wire format (https://html.spec.whatwg.org/multipage/server-sent-events.html): each run change is
 * <pre>
 * id: k3x9q2-1042
 * event: run
 * data: {"run_id":"...","job_id":"...","status":"running","attempt":1,"worker_id":"node-a","at":"2026-07-01T09:30:00.123Z"}
 * </pre>
 * followed by a blank line; a stream starts with {@code retry: 2000} and a comment; a comment {@code : keep-alive}
 * is sent every keep-alive interval (15 s by default) so that proxies and clients see a live connection and a
 * vanished client is noticed; {@code event: reset} (data {@code {"reason": ..., "last_event_id": ...}}) says that
 * events were missed and cannot be replayed: re-read the state.
 *
 * <p>No request thread is held by an idle stream: Jersey suspends the request ({@link ChunkedOutput}). Each stream
 * has its own queue of frames, written in order by a small shared pool of writer threads, one task per stream at a
 * time; a stream whose client reads too slowly (more than {@value #MAX_QUEUED_FRAMES} frames waiting) is closed, and
 * its client, reconnecting with {@code Last-Event-ID}, is given what it missed from the feed's buffer (or a reset).
 */
public final class EventStreams implements AutoCloseable {
    /** The keep-alive comment's interval by default. */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(15);
    /** The most streams a node serves at once by default. */
    public static final int DEFAULT_MAX_STREAMS = 1_000;
    /** Frames a stream may have waiting before it is closed as too slow. */
    static final int MAX_QUEUED_FRAMES = 20_000;
    static final String RETRY_MILLIS = "2000";

    private static final Logger LOG = LoggerFactory.getLogger(EventStreams.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_CHUNK_CHARS = 64 * 1024;

    private final RunEventFeed feed;
    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
    private final ExecutorService writers;
    private final ScheduledExecutorService ticker;
    private final int maxStreams;
    private volatile boolean closed;

    /** @param keepAlive how often a comment is sent on every stream */
    public EventStreams(RunEventFeed feed, Duration keepAlive) {
        this(feed, keepAlive, DEFAULT_MAX_STREAMS);
    }

    /**
     * @param keepAlive  how often a comment is sent on every stream
     * @param maxStreams the most streams open at once; one more is refused with a 503
     */
    public EventStreams(RunEventFeed feed, Duration keepAlive, int maxStreams) {
        if (maxStreams < 1) {
            throw new IllegalArgumentException("maxStreams must be >= 1, was " + maxStreams);
        }
        this.maxStreams = maxStreams;
        this.feed = Objects.requireNonNull(feed, "feed");
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> daemon(r, "forgeflow-sse-writer-" + n.incrementAndGet()));
        pool.allowCoreThreadTimeOut(true);
        this.writers = pool;
        ScheduledThreadPoolExecutor tick = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "forgeflow-sse-keepalive"));
        tick.setRemoveOnCancelPolicy(true);
        this.ticker = tick;
        long millis = Math.max(10, keepAlive.toMillis());
        ticker.scheduleAtFixedRate(this::keepAlive, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Open streams. */
    public int openStreams() {
        return streams.size();
    }

    /**
     * Opens a stream that first replays what followed {@code lastEventId} (or says {@code reset}), then follows the
     * feed. Throws a 503 {@link ApiException} once closing.
     */
    ChunkedOutput<String> open(String lastEventId) {
        if (closed) {
            throw new ApiException(503, "this node is shutting down: reconnect to another one", null);
        }
        Stream stream = new Stream();
        synchronized (streams) {
            if (streams.size() >= maxStreams) {
                throw new ApiException(503, "this node already serves its limit of " + maxStreams + " event streams "
                        + "(FORGEFLOW_EVENT_STREAMS): retry later or connect to another api node", null);
            }
            streams.add(stream);
        }
        stream.enqueue("retry: " + RETRY_MILLIS + "\n: forgeflow run events\n\n");
        stream.subscription = feed.subscribe(lastEventId, stream);
        if (closed) {
            stream.close();
        }
        return stream.output;
    }

    /**
     * Ends every stream (their clients reconnect, to another node) and stops the threads, waiting at most two seconds
     * for writes in progress. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        ticker.shutdownNow();
        for (Stream stream : streams) {
            stream.close();
        }
        writers.shutdown();
        try {
            writers.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writers.shutdownNow();
    }

    private void keepAlive() {
        for (Stream stream : streams) {
            stream.enqueue(": keep-alive\n\n");
        }
    }

    static String frame(RunEventFeed.Event event) {
        RunChange c = event.change();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("run_id", c.runId());
        data.put("job_id", c.jobId());
        data.put("status", c.status().wireName());
        data.put("attempt", c.attempt());
        data.put("worker_id", c.workerId());
        data.put("at", Timestamps.format(c.at()));
        return "id: " + event.id() + "\nevent: run\ndata: " + json(data) + "\n\n";
    }

    static String frame(RunEventFeed.Reset reset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("reason", reset.reason());
        data.put("last_event_id", reset.id());
        return "id: " + reset.id() + "\nevent: reset\ndata: " + json(data) + "\n\n";
    }

    private static String json(Map<String, Object> data) {
        try {
            return JSON.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an event as JSON", e);
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** One client's stream: a queue of frames, written in order by one writer task at a time. */
    private final class Stream implements RunEventFeed.Subscriber {
        final ChunkedOutput<String> output = new ChunkedOutput<>(String.class);
        final ConcurrentLinkedQueue<String> frames = new ConcurrentLinkedQueue<>();
        final AtomicInteger queued = new AtomicInteger();
        final AtomicBoolean scheduled = new AtomicBoolean();
        final AtomicBoolean done = new AtomicBoolean();
        volatile RunEventFeed.Subscription subscription;

        @Override
        public void events(List<RunEventFeed.Event> events) {
            for (RunEventFeed.Event event : events) {
                if (!offer(frame(event))) {
                    return;
                }
            }
            schedule();
        }

        @Override
        public void reset(RunEventFeed.Reset reset) {
            enqueue(frame(reset));
        }

        @Override
        public void closed() {
            close();
        }

        void enqueue(String frame) {
            if (offer(frame)) {
                schedule();
            }
        }

        private boolean offer(String frame) {
            if (done.get()) {
                return false;
            }
            if (queued.incrementAndGet() > MAX_QUEUED_FRAMES) {
                LOG.info("closing an event stream whose client reads too slowly ({} events waiting); it can resume "
                        + "with Last-Event-ID", MAX_QUEUED_FRAMES);
                close();
                return false;
            }
            frames.add(frame);
            return true;
        }

        private void schedule() {
            if (!done.get() && scheduled.compareAndSet(false, true)) {
                try {
                    writers.execute(this::drain);
                } catch (RuntimeException rejected) {
                    close();
                }
            }
        }

        /** Writes what is queued, in chunks; on a write failure (the client left) closes the stream. */
        private void drain() {
            try {
                StringBuilder chunk = new StringBuilder();
                String frame;
                while (!done.get() && (frame = frames.poll()) != null) {
                    queued.decrementAndGet();
                    chunk.append(frame);
                    if (chunk.length() >= MAX_CHUNK_CHARS || frames.isEmpty()) {
                        output.write(chunk.toString());
                        chunk.setLength(0);
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("an event stream ended: {}", e.toString());
                close();
            } finally {
                scheduled.set(false);
            }
            if (!frames.isEmpty() && !done.get()) {
                schedule();
            }
        }

        void close() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            streams.remove(this);
            RunEventFeed.Subscription s = subscription;
            if (s != null) {
                s.close();
            }
            frames.clear();
            // never on the caller's thread: it may hold the feed's lock, and closing waits for a write in progress
            try {
                writers.execute(this::closeOutput);
            } catch (RejectedExecutionException shuttingDown) {
                daemon(this::closeOutput, "forgeflow-sse-close").start();
            }
        }

        private void closeOutput() {
            try {
                output.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("closing an event stream failed: {}", e.toString());
            }
        }
    }
}
