package io.forgeflow.application.event;

import io.forgeflow.application.event.RunEventFeedTest.ManualRunEvents;
import io.forgeflow.application.event.RunEventFeedTest.Recorder;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.application.event.RunEventFeedTest.change;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** The edges of resuming a stream: ids at their limits, a feed of one, a closed feed. */
class RunEventFeedEdgesTest {
    final ManualRunEvents source = new ManualRunEvents();
    final RunEventFeed feed = new RunEventFeed(source, 5, "inc1");

    RunEventFeedEdgesTest() {
        feed.start();
    }

    /** Records every call, including one with nothing in it. */
    static final class Batches extends Recorder {
        final List<Integer> batchSizes = new ArrayList<>();

        @Override
        public void events(List<RunEventFeed.Event> batch) {
            batchSizes.add(batch.size());
            super.events(batch);
        }
    }

    @Test
    void resumingFromTheNewestEventCallsTheSubscriberWithNothing() {
        source.emit(change("r1", RunStatus.PENDING));
        Batches back = new Batches();

        feed.subscribe("inc1-1", back);

        assertThat(back.batchSizes).isEmpty();
        assertThat(back.resets).isEmpty();
    }

    @Test
    void theIdBeforeTheFirstEventResumesFromTheStart() {
        Batches back = new Batches();
        feed.subscribe(feed.currentId(), back);
        source.emit(change("r1", RunStatus.PENDING));

        assertThat(feed.currentId()).isEqualTo("inc1-1");
        assertThat(back.resets).isEmpty();
        assertThat(back.ids()).containsExactly("inc1-1");
        assertThat(feed.lastSequence()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"inc1-/", "inc1-:", "inc1-1:", "inc1-/1"})
    void idsWithCharactersNextToTheDigitsAreNotIssuedHereAndNeverThrow(String id) {
        source.emit(change("r1", RunStatus.PENDING));
        Recorder back = new Recorder();

        assertThatCode(() -> feed.subscribe(id, back)).doesNotThrowAnyException();

        assertThat(back.resets).singleElement().satisfies(r -> assertThat(r.reason()).contains("not issued by this server"));
    }

    @Test
    void anEighteenDigitSequenceIsReadAsANumberAndANineteenDigitOneIsNot() {
        Recorder eighteen = new Recorder();
        feed.subscribe("inc1-" + "1".repeat(18), eighteen);
        Recorder nineteen = new Recorder();
        feed.subscribe("inc1-" + "1".repeat(19), nineteen);

        assertThat(eighteen.resets).singleElement().satisfies(r -> assertThat(r.reason()).contains("ahead of this server's feed"));
        assertThat(nineteen.resets).singleElement().satisfies(r -> assertThat(r.reason()).contains("not issued by this server"));
    }

    @Test
    void anIdInTheResetReasonIsCutAfterSixtyFourCharacters() {
        String sixtyFour = "x".repeat(64);
        Recorder whole = new Recorder();
        feed.subscribe(sixtyFour, whole);
        Recorder cut = new Recorder();
        feed.subscribe(sixtyFour + "y", cut);

        assertThat(whole.resets.get(0).reason()).startsWith("event id " + sixtyFour + " was not issued");
        assertThat(cut.resets.get(0).reason()).startsWith("event id " + sixtyFour + "... was not issued");
    }

    @Test
    void resumingFromBeforeAGapSaysEventsMayHaveBeenMissed() {
        source.emit(change("r1", RunStatus.PENDING), change("r2", RunStatus.PENDING));
        source.gap("the connection dropped");
        Recorder back = new Recorder();

        feed.subscribe("inc1-1", back);

        assertThat(back.resets).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo("inc1-2");
            assertThat(r.reason()).isEqualTo("events after inc1-1 may have been missed by this server: re-read the "
                    + "state you show");
        });
    }

    @Test
    void aFeedOfOneKeepsTheNewestEventForReplay() {
        RunEventFeed one = new RunEventFeed(source, 1, "one");
        one.start();
        source.emit(change("r1", RunStatus.PENDING), change("r1", RunStatus.RUNNING));
        Recorder back = new Recorder();

        one.subscribe("one-1", back);

        assertThat(back.ids()).containsExactly("one-2");
        assertThat(back.resets).isEmpty();
    }

    @Test
    void aClosedFeedHasNoSubscribersAndItsSubscriptionsCloseQuietly() {
        feed.subscribe(null, new Recorder());
        feed.subscribe(null, new Recorder());

        feed.close();
        Recorder late = new Recorder();
        RunEventFeed.Subscription subscription = feed.subscribe(null, late);

        assertThat(feed.subscriberCount()).isZero();
        assertThat(late.closed).isTrue();
        assertThatCode(subscription::close).doesNotThrowAnyException();
    }

    @Test
    void eachFeedHasItsOwnRandomIncarnation() {
        java.util.Set<String> incarnations = new java.util.HashSet<>();
        for (int i = 0; i < 20; i++) {
            incarnations.add(new RunEventFeed(source, 1).currentId());
        }
        // ids of a restarted node must not resume against the old node's numbering
        assertThat(incarnations).hasSize(20).allSatisfy(id -> assertThat(id).matches("[a-z0-9]+-0"));
    }

    @Test
    void idsWithZerosAndNinesResumeLikeAnyOther() {
        for (int i = 0; i < 10; i++) {
            source.emit(change("r" + i, RunStatus.PENDING));
        }
        Recorder fromNine = new Recorder();
        feed.subscribe("inc1-9", fromNine);
        Recorder fromTen = new Recorder();
        feed.subscribe("inc1-10", fromTen);

        assertThat(fromNine.resets).isEmpty();
        assertThat(fromNine.ids()).containsExactly("inc1-10");
        assertThat(fromTen.resets).isEmpty();
        assertThat(fromTen.events).isEmpty();
    }
}
