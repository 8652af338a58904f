package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.domain.run.RunChange;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

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
 * <p>No thread is ever held by a stream: the request is asynchronous and every write is non-blocking (servlet
 * {@link WriteListener}): a stream writes only while its connection can take bytes, and otherwise waits for the
 * container's call-back, so a client that reads slowly or not at all delays nobody else. Each stream keeps at most
 * {@value #MAX_QUEUED_FRAMES} frames waiting (by default); past that, or when its connection has taken nothing for
 * {@link #STALL_LIMIT}, its client is too slow: the backlog is dropped, a {@code reset} (reason "slow consumer") is
 * queued instead, and the stream is closed once that is written, or after {@link #CLOSE_GRACE} if it never is.
 */
public final class EventStreams implements AutoCloseable {
    /** The keep-alive comment's interval by default. */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(15);
    /** The most streams a node serves at once by default. */
    public static final int DEFAULT_MAX_STREAMS = 1_000;
    /** Frames a stream may have waiting before its client counts as too slow, by default. */
    static final int MAX_QUEUED_FRAMES = 1_000;
    /** How long a connection may take no bytes while frames wait before its client counts as too slow. */
    static final Duration STALL_LIMIT = Duration.ofSeconds(30);
    /** How long a slow stream's reset may wait to be written before the stream is closed without it. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(5);
    static final String RETRY_MILLIS = "2000";

    private static final Logger LOG = LoggerFactory.getLogger(EventStreams.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Chunk KEEP_ALIVE = Chunk.of(": keep-alive\n\n");

    private final RunEventFeed feed;
    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticker;
    private final int maxStreams;
    private final int maxQueuedFrames;
    private final Object reservations = new Object();
    private int reserved;
    private volatile Framed lastFramed = new Framed(List.of(), new Chunk(new byte[0], 0));
    private volatile boolean closed;
    /** Who owns each job, for the streams of one tenant (null: no such streams are served). */
    private volatile io.forgeflow.domain.port.TenantDirectory tenants;
    /** Jobs' tenants already read; a tenant never changes, so an entry never goes stale. Bounded, least recent out. */
    private final Map<String, String> jobTenants = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(1024, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                    return size() > JOB_TENANT_CACHE;
                }
            });
    /** Resolves the events of tenants' streams off the feed's lock, one stream's batches in order. */
    private volatile java.util.concurrent.ExecutorService resolver;
    static final int JOB_TENANT_CACHE = 100_000;

    /** @param keepAlive how often a comment is sent on every stream */
    public EventStreams(RunEventFeed feed, Duration keepAlive) {
        this(feed, keepAlive, DEFAULT_MAX_STREAMS);
    }

    /**
     * @param keepAlive  how often a comment is sent on every stream
     * @param maxStreams the most streams open at once; one more is refused with a 503
     */
    public EventStreams(RunEventFeed feed, Duration keepAlive, int maxStreams) {
        this(feed, keepAlive, maxStreams, MAX_QUEUED_FRAMES);
    }

    /** @param maxQueuedFrames the frames a stream may have waiting before its client counts as too slow */
    EventStreams(RunEventFeed feed, Duration keepAlive, int maxStreams, int maxQueuedFrames) {
        if (maxStreams < 1) {
            throw new IllegalArgumentException("maxStreams must be >= 1, was " + maxStreams);
        }
        if (maxQueuedFrames < 1) {
            throw new IllegalArgumentException("maxQueuedFrames must be >= 1, was " + maxQueuedFrames);
        }
        this.maxStreams = maxStreams;
        this.maxQueuedFrames = maxQueuedFrames;
        this.feed = Objects.requireNonNull(feed, "feed");
        ScheduledThreadPoolExecutor tick = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "forgeflow-sse-keepalive"));
        tick.setRemoveOnCancelPolicy(true);
        this.ticker = tick;
        long millis = Math.max(10, keepAlive.toMillis());
        ticker.scheduleAtFixedRate(this::keepAlive, millis, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Serves streams of one tenant (README "Tenants"): each shows only the events of its tenant's jobs, read from
     * {@code directory} off the feed's lock (a thread of its own), in the feed's order.
     */
    public EventStreams tenants(io.forgeflow.domain.port.TenantDirectory directory) {
        this.tenants = Objects.requireNonNull(directory, "directory");
        this.resolver = java.util.concurrent.Executors.newSingleThreadExecutor(r -> daemon(r, "forgeflow-sse-tenants"));
        return this;
    }

    /** The feed these streams serve: the gRPC API's WatchRuns subscribes to it too (one event numbering per node). */
    public RunEventFeed feed() {
        return feed;
    }

    /** Open streams. */
    public int openStreams() {
        return streams.size();
    }

    /**
     * Takes a place for one more stream, or throws a 503 {@link ApiException} when the node serves its limit or is
     * closing. Each place taken is given back by {@link #open} (its stream's end) or {@link #release}.
     */
    void reserve() {
        synchronized (reservations) {
            if (closed) {
                throw new ApiException(503, "this node is shutting down: reconnect to another one", null);
            }
            if (reserved >= maxStreams) {
                throw new ApiException(503, "this node already serves its limit of " + maxStreams + " event streams "
                        + "(FORGEFLOW_EVENT_STREAMS): retry later or connect to another api node", null);
            }
            reserved++;
        }
    }

    /** Gives back a place {@link #reserve} took for a stream that was never opened. */
    void release() {
        synchronized (reservations) {
            reserved--;
        }
    }

    /**
     * Opens a reserved stream on an asynchronous request: it first replays what followed {@code lastEventId} (or
     * says {@code reset}), then follows the feed. Gives the place back when it fails.
     */
    void open(String lastEventId, AsyncContext async, HttpServletResponse response) throws IOException {
        open(lastEventId, null, async, response);
    }

    /** As {@link #open(String, AsyncContext, HttpServletResponse)}, showing only {@code tenant}'s (null: all). */
    void open(String lastEventId, String tenant, AsyncContext async, HttpServletResponse response) throws IOException {
        if (tenant != null && tenants == null) {
            release();
            throw new ApiException(403, "this node serves no event stream of one tenant: use a cluster-wide token "
                    + "without " + Tenancy.HEADER, null, ErrorCodes.TENANT_FORBIDDEN);
        }
        Stream stream;
        try {
            async.setTimeout(0);
            response.setStatus(200);
            response.setContentType(EventResource.EVENT_STREAM);
            response.setCharacterEncoding("UTF-8");
            response.setHeader("Cache-Control", "no-cache");
            response.setHeader("X-Accel-Buffering", "no"); // nginx: do not buffer the stream
            stream = new Stream(async, response.getOutputStream());
        } catch (IOException | RuntimeException e) {
            release();
            throw e;
        }
        streams.add(stream);
        try {
            stream.offer(Chunk.of("retry: " + RETRY_MILLIS + "\n: forgeflow run events\n\n"));
            stream.out.setWriteListener(stream); // the container calls onWritePossible: the first write
            stream.subscription = feed.subscribe(lastEventId, tenant == null ? stream : new TenantScoped(tenant, stream));
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        if (closed) {
            stream.close();
        }
    }

    /** Ends every stream (their clients reconnect, to another node) and stops the keep-alives. Idempotent. */
    @Override
    public void close() {
        java.util.concurrent.ExecutorService r = resolver;
        if (r != null) {
            r.shutdownNow();
        }
        synchronized (reservations) {
            closed = true;
        }
        ticker.shutdownNow();
        for (Stream stream : streams) {
            stream.close();
        }
    }

    private void keepAlive() {
        long now = System.nanoTime();
        for (Stream stream : streams) {
            if (stream.stalledFor(now) > STALL_LIMIT.toNanos()) {
                stream.tooSlow("its connection took nothing for " + STALL_LIMIT.toSeconds() + " s");
            } else {
                stream.enqueue(KEEP_ALIVE);
            }
        }
    }

    /** The frames of a batch the feed delivers, as one chunk of bytes: made once, shared by every stream. */
    private Chunk chunkOf(List<RunEventFeed.Event> events) {
        Framed last = lastFramed;
        if (last.events == events) {
            return last.chunk;
        }
        StringBuilder text = new StringBuilder();
        for (RunEventFeed.Event event : events) {
            text.append(frame(event));
        }
        Chunk chunk = new Chunk(text.toString().getBytes(StandardCharsets.UTF_8), events.size());
        lastFramed = new Framed(events, chunk);
        return chunk;
    }

    private record Framed(List<RunEventFeed.Event> events, Chunk chunk) {
    }

    /** The frames of one stream's own batch (a tenant's): not shared, so not kept. */
    private static Chunk chunkOfOwn(List<RunEventFeed.Event> events) {
        StringBuilder text = new StringBuilder();
        for (RunEventFeed.Event event : events) {
            text.append(frame(event));
        }
        return new Chunk(text.toString().getBytes(StandardCharsets.UTF_8), events.size());
    }

    /**
     * A stream of one tenant: what the feed delivers is queued as it comes (the feed's lock allows no reads), and a
     * thread of its own takes it in order, reads the tenants of jobs it has not seen, and passes on only the events of
     * this tenant's jobs (an event whose job is gone is dropped). If the tenants cannot be read, the stream is told
     * to re-read and ends: an event is never shown unchecked.
     */
    private final class TenantScoped implements RunEventFeed.Subscriber {
        private final String tenant;
        private final Stream stream;
        private final ConcurrentLinkedQueue<Object> items = new ConcurrentLinkedQueue<>();
        private final AtomicInteger waiting = new AtomicInteger();
        private final AtomicBoolean draining = new AtomicBoolean();

        TenantScoped(String tenant, Stream stream) {
            this.tenant = tenant;
            this.stream = stream;
        }

        @Override
        public void events(List<RunEventFeed.Event> events) {
            if (waiting.incrementAndGet() > maxQueuedFrames) {
                // the tenants cannot be read as fast as events come: as a slow client, told to re-read
                items.clear();
                waiting.set(0);
                stream.tooSlow("more than " + maxQueuedFrames + " batches of events were waiting for their tenants");
                return;
            }
            items.add(events);
            schedule();
        }

        @Override
        public void reset(RunEventFeed.Reset reset) {
            items.add(reset);
            schedule();
        }

        @Override
        public void closed() {
            items.add(Boolean.FALSE);
            schedule();
        }

        private void schedule() {
            if (!draining.compareAndSet(false, true)) {
                return;
            }
            try {
                resolver.execute(this::drain);
            } catch (RejectedExecutionException stopping) {
                draining.set(false);
                stream.close();
            }
        }

        private void drain() {
            try {
                Object item;
                while ((item = items.poll()) != null) {
                    if (item instanceof List<?> list) {
                        waiting.decrementAndGet();
                        @SuppressWarnings("unchecked")
                        List<RunEventFeed.Event> mine = mine((List<RunEventFeed.Event>) list);
                        if (!mine.isEmpty()) {
                            stream.enqueue(chunkOfOwn(mine));
                        }
                    } else if (item instanceof RunEventFeed.Reset reset) {
                        stream.reset(reset);
                    } else {
                        stream.closed();
                    }
                }
            } catch (RuntimeException e) {
                LOG.warn("could not read the tenants of run events for a stream of tenant {}: it is told to re-read "
                        + "and ends", tenant, e);
                items.clear();
                stream.tooSlow("the tenants of its events could not be read");
            } finally {
                draining.set(false);
            }
            if (!items.isEmpty()) {
                schedule();
            }
        }

        private List<RunEventFeed.Event> mine(List<RunEventFeed.Event> events) {
            Set<String> unknown = new java.util.HashSet<>();
            for (RunEventFeed.Event e : events) {
                if (!jobTenants.containsKey(e.change().jobId())) {
                    unknown.add(e.change().jobId());
                }
            }
            if (!unknown.isEmpty()) {
                jobTenants.putAll(tenants.tenantsOf(io.forgeflow.domain.port.TenantDirectory.Kind.JOB, unknown));
            }
            List<RunEventFeed.Event> mine = new java.util.ArrayList<>(events.size());
            for (RunEventFeed.Event e : events) {
                if (tenant.equals(jobTenants.get(e.change().jobId()))) {
                    mine.add(e);
                }
            }
            return mine;
        }
    }

    /** Bytes to write, and how many frames they hold. */
    private record Chunk(byte[] bytes, int frames) {
        static Chunk of(String frame) {
            return new Chunk(frame.getBytes(StandardCharsets.UTF_8), 1);
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

    /**
     * One client's stream: a bounded queue of frames, written without blocking, on the thread that queued them or on
     * the container's call-back that the connection can take more; one at a time (the gate).
     */
    private final class Stream implements RunEventFeed.Subscriber, WriteListener {
        final AsyncContext async;
        final ServletOutputStream out;
        final ConcurrentLinkedQueue<Chunk> chunks = new ConcurrentLinkedQueue<>();
        final AtomicInteger queued = new AtomicInteger();
        final ReentrantLock gate = new ReentrantLock();
        final AtomicBoolean done = new AtomicBoolean();
        volatile RunEventFeed.Subscription subscription;
        /** Set once the client is too slow: only the reset is left to write, then the stream ends. */
        volatile boolean dropping;
        /** Since when the connection takes no bytes and the container is to call back ({@code 0}: it takes them). */
        volatile long stalledSince;
        private volatile boolean flushPending;

        Stream(AsyncContext async, ServletOutputStream out) {
            this.async = async;
            this.out = out;
        }

        @Override
        public void events(List<RunEventFeed.Event> events) {
            enqueue(chunkOf(events));
        }

        @Override
        public void reset(RunEventFeed.Reset reset) {
            enqueue(Chunk.of(frame(reset)));
        }

        @Override
        public void closed() {
            close();
        }

        void enqueue(Chunk chunk) {
            if (offer(chunk)) {
                write();
            }
        }

        long stalledFor(long now) {
            long since = stalledSince;
            return since == 0 || chunks.isEmpty() ? 0 : now - since;
        }

        private boolean offer(Chunk chunk) {
            if (done.get() || dropping) {
                return false;
            }
            if (queued.addAndGet(chunk.frames) > maxQueuedFrames) {
                tooSlow("more than " + maxQueuedFrames + " events were waiting");
                return false;
            }
            chunks.add(chunk);
            return true;
        }

        /** Drops the backlog for a reset, then ends the stream once that is written, or after the grace. */
        void tooSlow(String why) {
            if (done.get() || dropping) {
                return;
            }
            dropping = true;
            LOG.info("dropping an event stream whose client reads too slowly ({}); it can resume with Last-Event-ID",
                    why);
            chunks.clear();
            queued.set(1);
            chunks.add(Chunk.of(frame(new RunEventFeed.Reset(feed.currentId(), "slow consumer: this stream fell behind ("
                    + why + ") and was dropped; re-read the state you show, then reconnect"))));
            try {
                ticker.schedule(this::close, CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                close();
                return;
            }
            write();
        }

        /**
         * Writes what is queued on this thread, unless the container is to call back (the connection takes no bytes)
         * or another thread holds the gate: that one looks at the queue again once it lets go.
         */
        private void write() {
            do {
                if (done.get() || stalledSince != 0 || !gate.tryLock()) {
                    return;
                }
                try {
                    writeWhileReady();
                } finally {
                    gate.unlock();
                }
            } while (!done.get() && stalledSince == 0 && (flushPending || !chunks.isEmpty()));
        }

        @Override
        public void onWritePossible() {
            gate.lock(); // whoever holds it never blocks: a short wait
            try {
                stalledSince = 0;
                writeWhileReady();
            } finally {
                gate.unlock();
            }
            write(); // what was queued while this held the gate
        }

        @Override
        public void onError(Throwable t) {
            LOG.debug("an event stream ended: {}", t.toString());
            close();
        }

        /** Writes what is queued while the connection takes bytes; returns at once when it does not. Under the gate. */
        private void writeWhileReady() {
            if (done.get()) {
                return;
            }
            try {
                while (out.isReady()) {
                    Chunk chunk = chunks.poll();
                    if (chunk != null) {
                        queued.addAndGet(-chunk.frames);
                        out.write(chunk.bytes);
                        flushPending = true;
                    } else if (flushPending) {
                        flushPending = false;
                        out.flush();
                    } else {
                        if (dropping) {
                            close();
                        }
                        return;
                    }
                }
                if (stalledSince == 0) {
                    stalledSince = Math.max(1, System.nanoTime());
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("an event stream ended: {}", e.toString());
                close();
            }
        }

        void close() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            streams.remove(this);
            release();
            RunEventFeed.Subscription s = subscription;
            if (s != null) {
                s.close();
            }
            chunks.clear();
            complete(); // non-blocking: the container ends the response once any write in progress is done
        }

        private void complete() {
            try {
                async.complete();
            } catch (RuntimeException e) {
                LOG.debug("ending an event stream failed: {}", e.toString());
            }
        }
    }
}
