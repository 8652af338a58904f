package io.forgeflow.domain.backoff;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryOverrideTest {
    static final RetryPolicy NODE = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    @Test
    void bothPartsGivenReplaceTheNodesPolicy() {
        assertThat(new RetryOverride(1, 2).over(NODE)).isEqualTo(new RetryPolicy(Duration.ofSeconds(1),
                Duration.ofSeconds(2)));
        assertThat(RetryOverride.effective(new RetryOverride(30, 3600), NODE))
                .isEqualTo(new RetryPolicy(Duration.ofSeconds(30), Duration.ofHours(1)));
    }

    @Test
    void noOverrideIsTheNodesPolicy() {
        assertThat(RetryOverride.effective(null, NODE)).isSameAs(NODE);
        assertThat(RetryOverride.of(null, null)).isNull();
        assertThat(RetryOverride.of(1, null)).isEqualTo(new RetryOverride(1, null));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "-", value = {
            // base, max -> effective base, cap (node: 5 s, 900 s)
            "10,   -,    10,   900",
            "3600, -,    3600, 3600",
            "-,    60,   5,    60",
            "-,    2,    2,    2",
            "-,    5,    5,    5"})
    void aPartLeftOutIsTheNodesAndGivesWayToTheGivenOne(Integer base, Integer max, long effectiveBase, long effectiveCap) {
        assertThat(new RetryOverride(base, max).over(NODE)).isEqualTo(new RetryPolicy(
                Duration.ofSeconds(effectiveBase), Duration.ofSeconds(effectiveCap)));
    }

    @Test
    void thePerJobCeilingsAndDrawsAreExact() {
        RetryPolicy own = new RetryOverride(1, 2).over(NODE);
        RandomGenerator highest = new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public long nextLong(long bound) {
                return bound - 1;
            }
        };

        assertThat(own.ceilingAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(own.ceilingAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(own.ceilingAfter(30)).isEqualTo(Duration.ofSeconds(2));
        assertThat(own.delayAfter(1, highest)).isEqualTo(Duration.ofMillis(1000));
        assertThat(own.delayAfter(5, highest)).isEqualTo(Duration.ofMillis(2000));
    }

    @Test
    void partsAreCheckedForRangeAndOrder() {
        assertThatThrownBy(() -> new RetryOverride(0, null)).hasMessageContaining("base_seconds must be between 1 and 86400");
        assertThatThrownBy(() -> new RetryOverride(null, 86_401)).hasMessageContaining("max_seconds must be between 1 and 86400");
        assertThatThrownBy(() -> new RetryOverride(3, 2)).hasMessageContaining("at most max_seconds");
        assertThat(new RetryOverride(86_400, 86_400).over(NODE).cap()).isEqualTo(Duration.ofDays(1));
        assertThat(new RetryOverride(2, 2).baseSeconds()).isEqualTo(2);
    }
}
