package io.forgeflow.domain.queue;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueValuesTest {

    @Nested
    class RateLimits {
        @ParameterizedTest
        @CsvSource({"1, 1", "100, 60", "1000000, 86400"})
        void countsAndWindowsWithinTheirRangesAreAccepted(int count, int perSeconds) {
            RateLimit limit = new RateLimit(count, perSeconds);

            assertThat(limit.count()).isEqualTo(count);
            assertThat(limit.perSeconds()).isEqualTo(perSeconds);
        }

        @ParameterizedTest
        @CsvSource({"0", "-1", "1000001", "-2147483648", "2147483647"})
        void aCountOutOfRangeIsRefusedNamingRateLimitCount(int count) {
            assertThatThrownBy(() -> new RateLimit(count, 60))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("rate_limit.count"))
                    .hasMessage("rate_limit.count must be between 1 and 1000000, was " + count);
        }

        @ParameterizedTest
        @CsvSource({"0", "-60", "86401"})
        void aWindowOutOfRangeIsRefusedNamingRateLimitPerSeconds(int perSeconds) {
            assertThatThrownBy(() -> new RateLimit(10, perSeconds))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("rate_limit.per_seconds"))
                    .hasMessage("rate_limit.per_seconds must be between 1 and 86400 (a day), was " + perSeconds);
        }

        @Test
        void theCountIsCheckedBeforeTheWindow() {
            assertThatThrownBy(() -> new RateLimit(0, 0))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("rate_limit.count"));
        }
    }

    @Nested
    class Limits {
        @Test
        void noneLimitsNothing() {
            assertThat(QueueLimits.NONE.maxRunning()).isNull();
            assertThat(QueueLimits.NONE.rateLimit()).isNull();
            assertThat(QueueLimits.NONE.isLimited()).isFalse();
            assertThat(new QueueLimits(null, null)).isEqualTo(QueueLimits.NONE);
        }

        @Test
        void eitherLimitMakesAQueueLimited() {
            assertThat(new QueueLimits(1, null).isLimited()).isTrue();
            assertThat(new QueueLimits(null, new RateLimit(1, 1)).isLimited()).isTrue();
            assertThat(new QueueLimits(QueueLimits.MAX_RUNNING_LIMIT, new RateLimit(1, 1)).isLimited()).isTrue();
        }

        @ParameterizedTest
        @CsvSource({"0", "-1", "100001", "-2147483648"})
        void maxRunningOutOfRangeIsRefusedNamingMaxRunning(int maxRunning) {
            assertThatThrownBy(() -> new QueueLimits(maxRunning, null))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("max_running"))
                    .hasMessage("max_running must be between 1 and 100000, or null for no limit; was " + maxRunning);
        }

        @Test
        void maxRunningAtItsBoundsIsAccepted() {
            assertThat(new QueueLimits(1, null).maxRunning()).isEqualTo(1);
            assertThat(new QueueLimits(100_000, null).maxRunning()).isEqualTo(100_000);
        }
    }

    @Nested
    class Selections {
        @Test
        void allTakesEveryQueue() {
            assertThat(QueueSelection.ALL.takes("default")).isTrue();
            assertThat(QueueSelection.ALL.takes("reports")).isTrue();
            assertThat(QueueSelection.ALL.include()).isNull();
            assertThat(QueueSelection.ALL.exclude()).isEmpty();
            assertThat(QueueSelection.ALL).hasToString("all queues");
        }

        @Test
        void onlyTakesTheQueuesNamed() {
            QueueSelection reports = QueueSelection.only(Set.of("reports", "exports"));

            assertThat(reports.takes("reports")).isTrue();
            assertThat(reports.takes("exports")).isTrue();
            assertThat(reports.takes("default")).isFalse();
            assertThat(QueueSelection.only(Set.of("reports"))).hasToString("queues [reports]");
        }

        @Test
        void allButTakesEveryQueueExceptTheOnesNamed() {
            QueueSelection rest = QueueSelection.allBut(Set.of("reports"));

            assertThat(rest.takes("reports")).isFalse();
            assertThat(rest.takes("default")).isTrue();
            assertThat(rest.takes("webhooks")).isTrue();
            assertThat(rest).hasToString("all queues but [reports]");
            assertThat(QueueSelection.allBut(Set.of())).isEqualTo(QueueSelection.ALL);
        }

        @Test
        void anExcludedQueueIsNotTakenEvenWhenIncluded() {
            QueueSelection both = new QueueSelection(Set.of("a", "b"), Set.of("b"));

            assertThat(both.takes("a")).isTrue();
            assertThat(both.takes("b")).isFalse();
            assertThat(both.takes("c")).isFalse();
        }

        @Test
        void aSelectionOfNoQueueIsRefusedSinceItWouldTakeNothing() {
            assertThatThrownBy(() -> QueueSelection.only(Set.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("give null for every queue");
        }

        @Test
        void aNullExcludeMeansNone() {
            assertThat(new QueueSelection(null, null)).isEqualTo(QueueSelection.ALL);
        }

        @Test
        void theSetsAreCopiedSoLaterChangesToTheCallersSetsDoNotLeakIn() {
            Set<String> include = new HashSet<>(Set.of("a"));
            Set<String> exclude = new HashSet<>();
            QueueSelection selection = new QueueSelection(include, exclude);
            include.add("b");
            exclude.add("a");

            assertThat(selection.takes("a")).isTrue();
            assertThat(selection.takes("b")).isFalse();
            assertThatThrownBy(() -> selection.include().add("c")).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class Infos {
        @Test
        void aMissingOrNegativeLagIsZeroAndMissingLimitsAreNone() {
            QueueInfo info = new QueueInfo("default", "q", 1, 0, 0, null, false, null, 0);
            assertThat(info.lag()).isEqualTo(Duration.ZERO);
            assertThat(info.limits()).isEqualTo(QueueLimits.NONE);
            assertThat(new QueueInfo("default", "q", 1, 1, 0, Duration.ofSeconds(-5), false, QueueLimits.NONE, 0).lag())
                    .as("clock skew between nodes").isEqualTo(Duration.ZERO);
            assertThat(new QueueInfo("default", "q", 1, 1, 0, Duration.ofSeconds(5), false, QueueLimits.NONE, 0).lag())
                    .isEqualTo(Duration.ofSeconds(5));
        }

        @Test
        void aQueueHasATenantAndAName() {
            assertThatThrownBy(() -> new QueueInfo("default", null, 0, 0, 0, Duration.ZERO, false, QueueLimits.NONE, 0))
                    .isInstanceOf(NullPointerException.class).hasMessage("name");
            assertThatThrownBy(() -> new QueueInfo(null, "q", 0, 0, 0, Duration.ZERO, false, QueueLimits.NONE, 0))
                    .isInstanceOf(NullPointerException.class).hasMessage("tenant");
        }
    }
}
