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
            controls.configure("default", "reports", true, false, new QueueLimits(2, null));
            controls.pause("default", "archive");

            assertThat(controls.list("default")).extracting(QueueInfo::name).containsExactly("archive", "default", "reports");
            assertThat(signal.count()).as("reading wakes nobody").isEqualTo(1);
        }

        @Test
        void aWellFormedNameNobodyUsesReadsAsAnEmptyOpenQueueAndIsNotCreated() {
            QueueInfo q = controls.get("default", "nobody");

            assertThat(q.name()).isEqualTo("nobody");
            assertThat(q.paused()).isFalse();
            assertThat(q.limits()).isEqualTo(QueueLimits.NONE);
            assertThat(q.pending()).isZero();
            assertThat(controls.list("default")).extracting(QueueInfo::name).containsExactly("default");
        }
    }

    @Nested
    class Tenants {
        @Test
        void eachTenantHasItsOwnSettingsForAQueueNameAndNullListsEveryTenant() {
            controls.configure("acme", "reports", true, false, new QueueLimits(2, null));
            controls.pause("beta", "reports");

            assertThat(controls.get("acme", "reports").limits().maxRunning()).isEqualTo(2);
            assertThat(controls.get("acme", "reports").paused()).isFalse();
            assertThat(controls.get("beta", "reports").paused()).isTrue();
            assertThat(controls.get("default", "reports").limits()).isEqualTo(QueueLimits.NONE);
            assertThat(controls.list("acme")).extracting(QueueInfo::tenant, QueueInfo::name)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("acme", "default"),
                            org.assertj.core.groups.Tuple.tuple("acme", "reports"));
            assertThat(controls.list(null)).extracting(QueueInfo::tenant, QueueInfo::name)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("acme", "reports"),
                            org.assertj.core.groups.Tuple.tuple("beta", "reports"),
                            org.assertj.core.groups.Tuple.tuple("default", "default"));
        }

        @Test
        void aMalformedTenantIsRefusedNamingTheFieldTenantAndChangesNothing() {
            for (Runnable call : List.<Runnable>of(() -> controls.get("Acme", "reports"),
                    () -> controls.configure("", "reports", true, false, new QueueLimits(1, null)),
                    () -> controls.pause(null, "reports"), () -> controls.resume("a b", "reports"),
                    () -> controls.list("UPPER"))) {
                assertThatThrownBy(call::run)
                        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("tenant"));
            }
            assertThat(controls.list(null)).extracting(QueueInfo::name).containsExactly("default");
            assertThat(signal.count()).isZero();
        }
    }

    @Nested
    class Limits {
        @Test
        void configureAppliesTheGivenLimitsAndWakesTheWorkers() {
            QueueInfo q = controls.configure("default", "reports", true, true, new QueueLimits(2, new RateLimit(100, 60)));

            assertThat(q.limits()).isEqualTo(new QueueLimits(2, new RateLimit(100, 60)));
            assertThat(controls.get("default", "reports").limits()).isEqualTo(q.limits());
            assertThat(signal.count()).as("a changed limit may let waiting runs start").isEqualTo(1);
        }

        @Test
        void aLimitNotGivenKeepsItsValueAndANullOneIsCleared() {
            controls.configure("default", "reports", true, true, new QueueLimits(2, new RateLimit(100, 60)));

            assertThat(controls.configure("default", "reports", true, false, new QueueLimits(5, null)).limits())
                    .isEqualTo(new QueueLimits(5, new RateLimit(100, 60)));
            assertThat(controls.configure("default", "reports", false, true, QueueLimits.NONE).limits())
                    .isEqualTo(new QueueLimits(5, null));
            assertThat(controls.configure("default", "reports", true, false, QueueLimits.NONE).limits())
                    .isEqualTo(QueueLimits.NONE);
            assertThat(signal.count()).isEqualTo(4);
        }

        @Test
        void configuringNothingChangesNothingButStillAnswersTheQueue() {
            controls.configure("default", "reports", true, false, new QueueLimits(3, null));

            QueueInfo same = controls.configure("default", "reports", false, false, QueueLimits.NONE);

            assertThat(same.limits().maxRunning()).isEqualTo(3);
        }
    }

    @Nested
    class PauseAndResume {
        @Test
        void pauseStopsTheQueueWithoutWakingAnyone() {
            QueueInfo q = controls.pause("default", "reports");

            assertThat(q.paused()).isTrue();
            assertThat(controls.get("default", "reports").paused()).isTrue();
            assertThat(signal.count()).isZero();
        }

        @Test
        void resumeReopensTheQueueAndWakesTheWorkers() {
            controls.configure("default", "reports", true, false, new QueueLimits(2, null));
            controls.pause("default", "reports");
            signal.reset();

            QueueInfo q = controls.resume("default", "reports");

            assertThat(q.paused()).isFalse();
            assertThat(q.limits().maxRunning()).as("resuming keeps the limits").isEqualTo(2);
            assertThat(signal.count()).isEqualTo(1);
        }

        @Test
        void pausingOrResumingTwiceIsHarmless() {
            controls.pause("default", "reports");
            assertThat(controls.pause("default", "reports").paused()).isTrue();
            controls.resume("default", "reports");
            assertThat(controls.resume("default", "reports").paused()).isFalse();
        }
    }

    @Nested
    class BadNames {
        @ParameterizedTest
        @ValueSource(strings = {"", " ", "a b", "-x", "ü", "a/b", "../etc", "a\u0000"})
        void everyControlRefusesAMalformedNameNamingTheFieldNameAndChangesNothing(String name) {
            List<QueueInfo> before = controls.list("default");

            for (Runnable call : List.<Runnable>of(() -> controls.get("default", name),
                    () -> controls.configure("default", name, true, true, new QueueLimits(1, null)),
                    () -> controls.pause("default", name), () -> controls.resume("default", name))) {
                assertThatThrownBy(call::run)
                        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("name"))
                        .hasMessageContaining("is not a valid queue name");
            }

            assertThat(controls.list("default")).isEqualTo(before);
            assertThat(signal.count()).isZero();
        }

        @Test
        void aNameOfAHundredAndOneCharactersIsRefusedAndOneOfAHundredAccepted() {
            assertThatThrownBy(() -> controls.pause("default", "q".repeat(101))).isInstanceOf(ValidationException.class);
            assertThat(controls.pause("default", "q".repeat(100)).paused()).isTrue();
        }

        @Test
        void aNullNameIsRefusedAsAValidationError() {
            assertThatThrownBy(() -> controls.get("default", null)).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo("name"));
        }
    }
}
