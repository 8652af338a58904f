package io.forgeflow.application.queue;

import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.RateLimit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueControlsTest {
    final MutableClock clock = MutableClock.at("2026-01-15T10:00:00Z");
    final InMemoryStore store = new InMemoryStore(clock);
    final CountingWorkSignal signal = new CountingWorkSignal();
    final QueueControls controls = new QueueControls(store.queues(), signal);

    @Test
    void needsARepositoryAndASignal() {
        assertThatThrownBy(() -> new QueueControls(null, signal)).isInstanceOf(NullPointerException.class)
                .hasMessage("queues");
        assertThatThrownBy(() -> new QueueControls(store.queues(), null)).isInstanceOf(NullPointerException.class)
                .hasMessage("signal");
    }

    @Nested
    class Reading {
        @Test
        void listShowsTheKnownQueuesByName() {
            controls.configure("reports", true, false, new QueueLimits(2, null));
            controls.pause("archive");

            assertThat(controls.list()).extracting(QueueInfo::name).containsExactly("archive", "default", "reports");
            assertThat(signal.count()).as("reading wakes nobody").isEqualTo(1);
        }

        @Test
        void aWellFormedNameNobodyUsesReadsAsAnEmptyOpenQueueAndIsNotCreated() {
            QueueInfo q = controls.get("nobody");

            assertThat(q.name()).isEqualTo("nobody");
            assertThat(q.paused()).isFalse();
            assertThat(q.limits()).isEqualTo(QueueLimits.NONE);
            assertThat(q.pending()).isZero();
            assertThat(controls.list()).extracting(QueueInfo::name).containsExactly("default");
        }
    }

    @Nested
    class Limits {
        @Test
        void configureAppliesTheGivenLimitsAndWakesTheWorkers() {
            QueueInfo q = controls.configure("reports", true, true, new QueueLimits(2, new RateLimit(100, 60)));

            assertThat(q.limits()).isEqualTo(new QueueLimits(2, new RateLimit(100, 60)));
            assertThat(controls.get("reports").limits()).isEqualTo(q.limits());
            assertThat(signal.count()).as("a changed limit may let waiting runs start").isEqualTo(1);
        }

        @Test
        void aLimitNotGivenKeepsItsValueAndANullOneIsCleared() {
            controls.configure("reports", true, true, new QueueLimits(2, new RateLimit(100, 60)));

            assertThat(controls.configure("reports", true, false, new QueueLimits(5, null)).limits())
                    .isEqualTo(new QueueLimits(5, new RateLimit(100, 60)));
            assertThat(controls.configure("reports", false, true, QueueLimits.NONE).limits())
                    .isEqualTo(new QueueLimits(5, null));
            assertThat(controls.configure("reports", true, false, QueueLimits.NONE).limits())
                    .isEqualTo(QueueLimits.NONE);
            assertThat(signal.count()).isEqualTo(4);
        }

        @Test
        void configuringNothingChangesNothingButStillAnswersTheQueue() {
            controls.configure("reports", true, false, new QueueLimits(3, null));

            QueueInfo same = controls.configure("reports", false, false, QueueLimits.NONE);

            assertThat(same.limits().maxRunning()).isEqualTo(3);
        }
    }

    @Nested
    class PauseAndResume {
        @Test
        void pauseStopsTheQueueWithoutWakingAnyone() {
            QueueInfo q = controls.pause("reports");

            assertThat(q.paused()).isTrue();
            assertThat(controls.get("reports").paused()).isTrue();
            assertThat(signal.count()).isZero();
        }

        @Test
        void resumeReopensTheQueueAndWakesTheWorkers() {
            controls.configure("reports", true, false, new QueueLimits(2, null));
            controls.pause("reports");
            signal.reset();

            QueueInfo q = controls.resume("reports");

            assertThat(q.paused()).isFalse();
            assertThat(q.limits().maxRunning()).as("resuming keeps the limits").isEqualTo(2);
            assertThat(signal.count()).isEqualTo(1);
        }

        @Test
        void pausingOrResumingTwiceIsHarmless() {
            controls.pause("reports");
            assertThat(controls.pause("reports").paused()).isTrue();
            controls.resume("reports");
            assertThat(controls.resume("reports").paused()).isFalse();
        }
    }

    @Nested
    class BadNames {
        @ParameterizedTest
        @ValueSource(strings = {"", " ", "a b", "-x", "ü", "a/b", "../etc", "a\u0000"})
        void everyControlRefusesAMalformedNameNamingTheFieldNameAndChangesNothing(String name) {
            List<QueueInfo> before = controls.list();

            for (Runnable call : List.<Runnable>of(() -> controls.get(name),
                    () -> controls.configure(name, true, true, new QueueLimits(1, null)),
                    () -> controls.pause(name), () -> controls.resume(name))) {
                assertThatThrownBy(call::run)
                        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("name"))
                        .hasMessageContaining("is not a valid queue name");
            }

            assertThat(controls.list()).isEqualTo(before);
            assertThat(signal.count()).isZero();
        }

        @Test
        void aNameOfAHundredAndOneCharactersIsRefusedAndOneOfAHundredAccepted() {
            assertThatThrownBy(() -> controls.pause("q".repeat(101))).isInstanceOf(ValidationException.class);
            assertThat(controls.pause("q".repeat(100)).paused()).isTrue();
        }

        @Test
        void aNullNameIsRefusedAsAValidationError() {
            assertThatThrownBy(() -> controls.get(null)).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo("name"));
        }
    }
}
