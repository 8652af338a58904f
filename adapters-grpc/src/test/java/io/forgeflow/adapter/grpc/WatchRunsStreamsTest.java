package io.forgeflow.adapter.grpc;

import io.forgeflow.adapter.grpc.v1.RunEvent;
import io.forgeflow.adapter.grpc.v1.RunServiceGrpc;
import io.forgeflow.adapter.grpc.v1.WatchRunsRequest;
import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WatchRuns over real HTTP/2 on loopback with a real {@link RunEventFeed}: 1,000 idle streams and a client that
 * stops reading do not keep a fast client from every event, in order; the slow one is reset and ended (a stream may
 * have 200 events waiting here: the slow one passes that once its HTTP/2 window is full).
 */
class WatchRunsStreamsTest {
    static final int EVENTS = 30_000;
    final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /** A source the test publishes into, as the node's LISTEN/NOTIFY would. */
    static final class Source implements RunEvents {
        volatile Listener listener;

        @Override
        public void publish(List<RunChange> changes) {
            listener.changed(changes);
        }

        @Override
        public AutoCloseable subscribe(Listener newListener) {
            this.listener = newListener;
            return () -> { };
        }
    }

    @Test
    void idleStreamsAndASlowConsumerDoNotDelayAFastOne() throws Exception {
        Source source = new Source();
        RunEventFeed feed = new RunEventFeed(source, 100);
        feed.start();
        closing.add(feed);
        RunWatches watches = new RunWatches(feed, 2_000, 200, job -> "default");
        closing.add(watches);
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new RunGrpcService(null, new Unary(t -> false), watches, t -> false)).build().start();
        closing.add(() -> server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        closing.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
        RunServiceGrpc.RunServiceStub stub = RunServiceGrpc.newStub(channel);

        // 1,000 idle streams: a job no event names
        CountDownLatch idleEnded = new CountDownLatch(1_000);
        for (int i = 0; i < 1_000; i++) {
            stub.watchRuns(WatchRunsRequest.newBuilder().setJobId("idle-" + i).build(), new Counting(idleEnded));
        }
        // the slow one asks for one message and never for another: its HTTP/2 window fills, then its backlog
        // (on a connection of its own with a small fixed window: grpc-java's auto-tuned window would take megabytes)
        ManagedChannel slowChannel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                .flowControlWindow(16 * 1024).build();
        closing.add(() -> slowChannel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
        ClientCall<WatchRunsRequest, RunEvent> slow = slowChannel.newCall(RunServiceGrpc.getWatchRunsMethod(),
                CallOptions.DEFAULT);
        AtomicReference<Status> slowEnd = new AtomicReference<>();
        AtomicReference<RunEvent> slowLast = new AtomicReference<>();
        CountDownLatch slowEnded = new CountDownLatch(1);
        slow.start(new ClientCall.Listener<>() {
            @Override
            public void onMessage(RunEvent message) {
                slowLast.set(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                slowEnd.set(status);
                slowEnded.countDown();
            }
        }, new Metadata());
        slow.sendMessage(WatchRunsRequest.getDefaultInstance());
        slow.halfClose();
        slow.request(1);
        // the fast one reads everything
        AtomicLong lastSequence = new AtomicLong();
        AtomicInteger received = new AtomicInteger();
        AtomicReference<String> disorder = new AtomicReference<>();
        CountDownLatch fastGotAll = new CountDownLatch(1);
        stub.watchRuns(WatchRunsRequest.getDefaultInstance(), new StreamObserver<>() {
            @Override
            public void onNext(RunEvent e) {
                if (!e.hasChange()) {
                    disorder.compareAndSet(null, "a reset: " + e.getReset().getReason());
                    return;
                }
                long sequence = Long.parseLong(e.getId().substring(e.getId().lastIndexOf('-') + 1));
                if (sequence != lastSequence.get() + 1) {
                    disorder.compareAndSet(null, "event " + sequence + " after " + lastSequence.get());
                }
                lastSequence.set(sequence);
                if (received.incrementAndGet() == EVENTS) {
                    fastGotAll.countDown();
                }
            }

            @Override
            public void onError(Throwable t) {
                disorder.compareAndSet(null, "the fast stream failed: " + t);
            }

            @Override
            public void onCompleted() {
            }
        });
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (watches.openStreams() < 1_002 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(1_002, watches.openStreams(), "streams open before the events");

        Instant at = Instant.parse("2026-12-06T00:00:00Z");
        for (int i = 0; i < EVENTS; i += 100) {
            List<RunChange> batch = new ArrayList<>();
            for (int j = i; j < i + 100; j++) {
                batch.add(new RunChange("run-" + j, "job-" + j, RunStatus.RUNNING, 1, "w", at));
            }
            source.publish(batch);
            // a fast client keeps up: the next batch comes once it has this one (the slow one never does)
            long caughtUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received.get() < i + 100 && disorder.get() == null && System.nanoTime() < caughtUp) {
                Thread.sleep(1);
            }
        }

        assertTrue(fastGotAll.await(120, TimeUnit.SECONDS), "the fast stream got " + received.get() + " of "
                + EVENTS + " events");
        assertEquals(null, disorder.get());
        // the node drops the slow stream (its backlog passed 200, then 5 s of grace): the others stay
        long dropped = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (watches.openStreams() > 1_001 && System.nanoTime() < dropped) {
            Thread.sleep(10);
        }
        assertEquals(1_000 + 1, watches.openStreams(), "the idle streams and the fast one stay, the slow one is gone");
        // when the slow client reads again, what it gets ends with its reset, then the end of the stream
        slow.request(Integer.MAX_VALUE);
        assertTrue(slowEnded.await(60, TimeUnit.SECONDS), "the slow stream did not end");
        assertEquals(Status.Code.CANCELLED, slowEnd.get().getCode(), "the slow stream ended with " + slowEnd.get());
        assertTrue(slowLast.get().hasReset() && slowLast.get().getReset().getReason().startsWith("slow consumer"),
                "the slow stream's last event: " + slowLast.get());
    }

    static final class Counting implements StreamObserver<RunEvent> {
        final CountDownLatch ended;

        Counting(CountDownLatch ended) {
            this.ended = ended;
        }

        @Override
        public void onNext(RunEvent value) {
        }

        @Override
        public void onError(Throwable t) {
            ended.countDown();
        }

        @Override
        public void onCompleted() {
            ended.countDown();
        }
    }
}
