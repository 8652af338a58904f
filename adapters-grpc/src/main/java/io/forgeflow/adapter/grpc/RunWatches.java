package io.forgeflow.adapter.grpc;

import com.google.rpc.Code;
import io.forgeflow.adapter.grpc.v1.RunChange;
import io.forgeflow.adapter.grpc.v1.RunEvent;
import io.forgeflow.adapter.grpc.v1.StreamReset;
import io.forgeflow.adapter.grpc.v1.WatchRunsRequest;
import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.run.RunStatus;
import io.grpc.stub.ServerCallStreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The open {@code WatchRuns} streams, fed by the same {@link RunEventFeed} as REST's {@code /api/events} (so event ids
 * resume on either), with the same bounds: at most {@code maxStreams} streams, at most {@code maxQueued} events
 * waiting per stream, and a stream whose client took nothing for {@link #STALL_LIMIT} while events waited, or let
 * more than that many pile up, is reset ("slow consumer") and ended, never slowing the others.
 *
 * <p>The feed's thread only queues; each stream sends from a pool thread, only while its call is ready (HTTP/2 flow
 * control), so a client that reads slowly or not at all holds no thread.
 */
final class RunWatches implements AutoCloseable {
    static final int MAX_QUEUED = 1_000;
    static final Duration STALL_LIMIT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(RunWatches.class);

    private final RunEventFeed feed;
    private final int maxStreams;
    private final int maxQueued;
    private final Function<String, String> queueOfJob;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final AtomicInteger open = new AtomicInteger();
    private final ExecutorService senders = Executors.newCachedThreadPool(r -> daemon(r, "forgeflow-grpc-watch"));
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(
            r -> daemon(r, "forgeflow-grpc-watch-stall"));
    private volatile boolean closed;

    /**
     * @param queueOfJob a job's queue (for the queue filter), looked up by the sending thread; null when the job is gone
     */
    RunWatches(RunEventFeed feed, int maxStreams, int maxQueued, Function<String, String> queueOfJob) {
        this.feed = feed;
        this.maxStreams = maxStreams;
        this.maxQueued = maxQueued;
        this.queueOfJob = queueOfJob;
        ticker.scheduleAtFixedRate(this::checkStalls, 1, 1, TimeUnit.SECONDS);
    }

    int openStreams() {
        return open.get();
    }

    void watch(WatchRunsRequest request, ServerCallStreamObserver<RunEvent> observer) {
        Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
        for (int i = 0; i < request.getStatusesCount(); i++) {
            statuses.add(Convert.runStatus("statuses[" + i + "]", request.getStatuses(i)));
        }
        if (closed) {
            throw GrpcErrors.status(Code.UNAVAILABLE, "this node is shutting down: reconnect to another one",
                    "unavailable", null);
        }
        if (open.incrementAndGet() > maxStreams) {
            open.decrementAndGet();
            throw GrpcErrors.status(Code.RESOURCE_EXHAUSTED, "this node already serves its limit of " + maxStreams
                    + " event streams (FORGEFLOW_EVENT_STREAMS): retry later or connect to another api node",
                    "rate_limited", null);
        }
        Watch watch = new Watch(observer, request.getJobId(), request.getQueue(), statuses);
        watches.add(watch);
        observer.setOnCancelHandler(watch::cancelled);
        observer.setOnReadyHandler(watch::schedule);
        watch.subscription = feed.subscribe(request.getLastEventId(), watch);
        if (closed) {
            watch.finish();
        }
    }

    private void checkStalls() {
        long now = System.nanoTime();
        for (Watch watch : watches) {
            long since = watch.stalledSince;
            if (since != 0 && !watch.items.isEmpty() && now - since > STALL_LIMIT.toNanos()) {
                watch.tooSlow("its connection took nothing for " + STALL_LIMIT.toSeconds() + " s");
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Watch watch : watches) {
            watch.finish();
        }
        ticker.shutdownNow();
        senders.shutdown();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** What a stream sends next: an event, a reset, or the end. */
    private record Item(RunEventFeed.Event event, RunEventFeed.Reset reset, boolean end) {
    }

    private final class Watch implements RunEventFeed.Subscriber {
        final ServerCallStreamObserver<RunEvent> observer;
        final String jobId;
        final String queue;
        final Set<RunStatus> statuses;
        final ConcurrentLinkedQueue<Item> items = new ConcurrentLinkedQueue<>();
        final AtomicInteger queued = new AtomicInteger();
        final ReentrantLock gate = new ReentrantLock();
        final AtomicBoolean done = new AtomicBoolean();
        final Map<String, String> queues = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > 1_024;
            }
        };
        volatile RunEventFeed.Subscription subscription;
        volatile boolean dropping;
        volatile long stalledSince;

        Watch(ServerCallStreamObserver<RunEvent> observer, String jobId, String queue, Set<RunStatus> statuses) {
            this.observer = observer;
            this.jobId = jobId;
            this.queue = queue;
            this.statuses = statuses;
        }

        @Override
        public void events(java.util.List<RunEventFeed.Event> events) {
            for (RunEventFeed.Event event : events) {
                // the cheap filters here; the queue's (a lookup) on the sending thread
                if (!jobId.isEmpty() && !jobId.equalsIgnoreCase(event.change().jobId())) {
                    continue;
                }
                if (!statuses.isEmpty() && !statuses.contains(event.change().status())) {
                    continue;
                }
                if (!offer(new Item(event, null, false))) {
                    return;
                }
            }
            schedule();
        }

        @Override
        public void reset(RunEventFeed.Reset reset) {
            if (offer(new Item(null, reset, false))) {
                schedule();
            }
        }

        @Override
        public void closed() {
            finish();
        }

        private boolean offer(Item item) {
            if (done.get() || dropping) {
                return false;
            }
            if (queued.incrementAndGet() > maxQueued) {
                tooSlow("more than " + maxQueued + " events were waiting");
                return false;
            }
            items.add(item);
            return true;
        }

        void tooSlow(String why) {
            if (done.get() || dropping) {
                return;
            }
            dropping = true;
            LOG.info("resetting a WatchRuns stream whose client reads too slowly ({}); it can resume with "
                    + "last_event_id", why);
            items.clear();
            queued.set(1);
            items.add(new Item(null, new RunEventFeed.Reset(feed.currentId(), "slow consumer: this stream fell "
                    + "behind (" + why + ") and was dropped; re-read the state you show, then reconnect"), false));
            items.add(new Item(null, null, true));
            schedule();
            // a client that never reads again gets no reset: end the call after a grace
            try {
                ticker.schedule(this::end, 5, TimeUnit.SECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                end();
            }
        }

        /** Ends the stream once what is queued is sent (the node stops). */
        void finish() {
            if (!done.get()) {
                items.add(new Item(null, null, true));
                schedule();
            }
        }

        void schedule() {
            try {
                senders.execute(this::send);
            } catch (RejectedExecutionException shuttingDown) {
                end();
            }
        }

        private void send() {
            if (!gate.tryLock()) {
                return; // the holder sends what is queued
            }
            try {
                while (!done.get()) {
                    if (!observer.isReady()) {
                        if (!items.isEmpty() && stalledSince == 0) {
                            stalledSince = Math.max(1, System.nanoTime());
                        }
                        return;
                    }
                    stalledSince = 0;
                    Item item = items.poll();
                    if (item == null) {
                        return;
                    }
                    queued.decrementAndGet();
                    if (item.end()) {
                        complete();
                        return;
                    }
                    RunEvent event = event(item);
                    if (event != null) {
                        observer.onNext(event);
                    }
                }
            } catch (RuntimeException e) {
                LOG.debug("a WatchRuns stream ended: {}", e.toString());
                cancelled();
            } finally {
                gate.unlock();
            }
            if (!done.get() && !items.isEmpty() && observer.isReady()) {
                schedule();
            }
        }

        private RunEvent event(Item item) {
            if (item.reset() != null) {
                return RunEvent.newBuilder().setId(item.reset().id())
                        .setReset(StreamReset.newBuilder().setReason(item.reset().reason())).build();
            }
            RunChange change = Convert.change(item.event().change());
            if (!queue.isEmpty()) {
                String of = queueOf(item.event().change().jobId());
                if (!queue.equals(of)) {
                    return null;
                }
                change = change.toBuilder().setQueue(of).build();
            }
            return RunEvent.newBuilder().setId(item.event().id()).setChange(change).build();
        }

        private String queueOf(String job) {
            String known = queues.get(job);
            if (known == null) {
                try {
                    known = queueOfJob.apply(job);
                } catch (NotFoundException gone) {
                    known = "";
                }
                queues.put(job, known == null ? "" : known);
            }
            return known;
        }

        private void complete() {
            if (done.compareAndSet(false, true)) {
                cleanUp();
                try {
                    observer.onCompleted();
                } catch (RuntimeException e) {
                    LOG.debug("ending a WatchRuns stream failed: {}", e.toString());
                }
            }
        }

        /** The client left: nothing more may be sent. */
        void cancelled() {
            if (done.compareAndSet(false, true)) {
                cleanUp();
            }
        }

        /**
         * It is too slow to hear its reset, or the node stops: drop the stream. A waiting reset is handed to the
         * transport anyway (one message), so the client reads it before the end whenever it reads again.
         */
        void end() {
            if (done.compareAndSet(false, true)) {
                Item first = items.peek();
                cleanUp();
                gate.lock(); // the sender never blocks while it holds it: a short wait, then no onNext runs beside this
                try {
                    if (first != null && first.reset() != null) {
                        observer.onNext(event(first));
                    }
                    observer.onError(io.grpc.Status.CANCELLED.withDescription("stream dropped").asRuntimeException());
                } catch (RuntimeException e) {
                    LOG.debug("a WatchRuns stream was already over: {}", e.toString());
                } finally {
                    gate.unlock();
                }
            }
        }

        private void cleanUp() {
            watches.remove(this);
            open.decrementAndGet();
            RunEventFeed.Subscription s = subscription;
            if (s != null) {
                s.close();
            }
            items.clear();
        }
    }
}
