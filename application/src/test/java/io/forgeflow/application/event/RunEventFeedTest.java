package io.forgeflow.application.event;

import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunEventFeedTest {
    final ManualRunEvents source = new ManualRunEvents();
    final RunEventFeed feed = new RunEventFeed(source, 5, "inc1");

    RunEventFeedTest() {
        feed.start();
    }

    @Test
    void eventsAreNumberedInOrderAndGivenToEverySubscriber() {
        Recorder a = subscribe(null);
        Recorder b = subscribe(null);

        source.emit(change("r1", RunStatus.RUNNING), change("r2", RunStatus.PENDING));
        source.emit(change("r1", RunStatus.SUCCEEDED));

        assertThat(a.ids()).containsExactly("inc1-1", "inc1-2", "inc1-3");
        assertThat(b.ids()).containsExactly("inc1-1", "inc1-2", "inc1-3");
        assertThat(a.events.get(2).change().status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(feed.currentId()).isEqualTo("inc1-3");
    }

    @Test
    void aNewSubscriberWithoutALastEventIdGetsOnlyNewEvents() {
        source.emit(change("r1", RunStatus.RUNNING));

        Recorder late = subscribe(null);
        source.emit(change("r1", RunStatus.SUCCEEDED));

        assertThat(late.ids()).containsExactly("inc1-2");
        assertThat(late.resets).isEmpty();
    }

    @Nested
    class Replay {

        @Test
        void aSubscriberResumingAfterAKnownIdGetsWhatItMissedThenNewEvents() {
            source.emit(change("r1", RunStatus.PENDING), change("r1", RunStatus.RUNNING), change("r1", RunStatus.SUCCEEDED));

            Recorder back = subscribe("inc1-1");
            source.emit(change("r2", RunStatus.PENDING));

            assertThat(back.ids()).containsExactly("inc1-2", "inc1-3", "inc1-4");
            assertThat(back.resets).isEmpty();
        }

        @Test
        void resumingAfterTheNewestEventReplaysNothing() {
            source.emit(change("r1", RunStatus.PENDING));

            Recorder back = subscribe("inc1-1");

            assertThat(back.events).isEmpty();
            assertThat(back.resets).isEmpty();
        }

        @Test
        void resumingFromTheOldestEventStillKeptReplaysTheRest() {
            for (int i = 0; i < 7; i++) {
                source.emit(change("r" + i, RunStatus.PENDING));
            }
            // capacity 5: events 3..7 are kept; resuming after 2 needs exactly those

            Recorder back = subscribe("inc1-2");

            assertThat(back.ids()).containsExactly("inc1-3", "inc1-4", "inc1-5", "inc1-6", "inc1-7");
            assertThat(back.resets).isEmpty();
        }
    }

    @Nested
    class Reset {

        @Test
        void anIdOlderThanTheBufferGetsAResetAtTheCurrentPosition() {
            for (int i = 0; i < 7; i++) {
                source.emit(change("r" + i, RunStatus.PENDING));
            }

            Recorder back = subscribe("inc1-1");

            assertThat(back.events).isEmpty();
            assertThat(back.resets).singleElement().satisfies(r -> {
                assertThat(r.id()).isEqualTo("inc1-7");
                assertThat(r.reason()).contains("older than the last 5 events");
            });
            source.emit(change("r9", RunStatus.PENDING));
            assertThat(back.ids()).containsExactly("inc1-8");
        }

        @Test
        void anIdOfAnotherIncarnationOrMalformedOrFromTheFutureGetsAReset() {
            source.emit(change("r1", RunStatus.PENDING));

            assertThat(subscribe("other-1").resets).singleElement()
                    .satisfies(r -> assertThat(r.reason()).contains("not issued by this server"));
            assertThat(subscribe("garbage").resets).hasSize(1);
            assertThat(subscribe("inc1-x").resets).hasSize(1);
            assertThat(subscribe("inc1-99").resets).singleElement()
                    .satisfies(r -> assertThat(r.reason()).contains("ahead"));
        }

        @Test
        void aGapInTheSourceResetsTheOpenStreamsAndForbidsReplayAcrossIt() {
            source.emit(change("r1", RunStatus.PENDING), change("r2", RunStatus.PENDING));
            Recorder open = subscribe(null);

            source.gap("the connection dropped");

            assertThat(open.resets).singleElement().satisfies(r -> {
                assertThat(r.id()).isEqualTo("inc1-2");
                assertThat(r.reason()).contains("the connection dropped");
            });
            source.emit(change("r3", RunStatus.PENDING));
            assertThat(subscribe("inc1-1").resets).hasSize(1);
            assertThat(subscribe("inc1-2").ids()).containsExactly("inc1-3");
        }
    }

    @Test
    void closingTheFeedClosesItsSubscribersAndUnsubscribesFromTheSource() {
        Recorder open = subscribe(null);

        feed.close();

        assertThat(open.closed).isTrue();
        assertThat(source.listeners).isEmpty();
        Recorder late = subscribe(null);
        assertThat(late.closed).isTrue();
    }

    @Test
    void anUnsubscribedSubscriberHearsNothingMore() {
        Recorder r = new Recorder();
        RunEventFeed.Subscription subscription = feed.subscribe(null, r);

        subscription.close();
        source.emit(change("r1", RunStatus.PENDING));

        assertThat(r.events).isEmpty();
        assertThat(feed.subscriberCount()).isZero();
    }

    @Test
    void aSubscriberThatThrowsIsDroppedWithoutHarmingTheOthers() {
        feed.subscribe(null, new Recorder() {
            @Override
            public void events(List<RunEventFeed.Event> events) {
                throw new IllegalStateException("broken client");
            }
        });
        Recorder healthy = subscribe(null);

        source.emit(change("r1", RunStatus.PENDING));
        source.emit(change("r1", RunStatus.RUNNING));

        assertThat(healthy.ids()).containsExactly("inc1-1", "inc1-2");
        assertThat(feed.subscriberCount()).isEqualTo(1);
    }

    @Test
    void theIncarnationMustBeLettersAndDigits() {
        assertThatThrownBy(() -> new RunEventFeed(source, 5, "a-b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RunEventFeed(source, 0, "ab")).isInstanceOf(IllegalArgumentException.class);
        assertThat(new RunEventFeed(source, 5).currentId()).matches("[a-z0-9]+-0");
    }

    Recorder subscribe(String lastEventId) {
        Recorder recorder = new Recorder();
        feed.subscribe(lastEventId, recorder);
        return recorder;
    }

    static RunChange change(String run, RunStatus status) {
        return new RunChange(run, "job", status, status == RunStatus.PENDING ? 0 : 1, null,
                Instant.parse("2025-01-01T00:00:00Z"));
    }

    static class Recorder implements RunEventFeed.Subscriber {
        final List<RunEventFeed.Event> events = new ArrayList<>();
        final List<RunEventFeed.Reset> resets = new ArrayList<>();
        boolean closed;

        @Override
        public void events(List<RunEventFeed.Event> batch) {
            events.addAll(batch);
        }

        @Override
        public void reset(RunEventFeed.Reset reset) {
            resets.add(reset);
        }

        @Override
        public void closed() {
            closed = true;
        }

        List<String> ids() {
            return events.stream().map(RunEventFeed.Event::id).toList();
        }
    }

    /** A source the test drives by hand. */
    static final class ManualRunEvents implements RunEvents {
        final List<Listener> listeners = new ArrayList<>();

        @Override
        public void publish(List<RunChange> changes) {
            emit(changes.toArray(RunChange[]::new));
        }

        @Override
        public AutoCloseable subscribe(Listener listener) {
            listeners.add(listener);
            return () -> listeners.remove(listener);
        }

        void emit(RunChange... changes) {
            for (Listener l : new ArrayList<>(listeners)) {
                l.changed(List.of(changes));
            }
        }

        void gap(String reason) {
            for (Listener l : new ArrayList<>(listeners)) {
                l.gap(reason);
            }
        }
    }
}
