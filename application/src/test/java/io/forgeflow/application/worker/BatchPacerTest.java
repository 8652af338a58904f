package io.forgeflow.application.worker;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The claimer's and acknowledger's duty cycle: times are System.nanoTime values, given by the test. */
class BatchPacerTest {
    static final long MS = 1_000_000L;

    /** A statement from {@code start} to {@code end} carrying {@code items}. */
    static void statement(BatchPacer pacer, long start, long end, int items) {
        pacer.started(start);
        pacer.ended(end, items);
    }

    @Nested
    class DutyCycle {
        @Test
        void nothingWaitsBeforeTheFirstStatementHasEnded() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 0);

            assertThat(pacer.pauseNanos(0)).isZero();
            pacer.started(100 * MS);
            assertThat(pacer.pauseNanos(100 * MS)).isZero(); // a statement under way (or one that failed) is no measure
        }

        @ParameterizedTest(name = "a statement of {0} µs is followed by a pause of {1} µs")
        @CsvSource({
                "0, 0",
                "100, 400",
                "250, 1000",
                "1249, 4996",
                "1250, 5000", // the cap reached exactly
                "1251, 5000",
                "40000, 5000"})
        void thePauseIsTheRatioTimesTheStatementsDurationUpToTheCap(long tookMicros, long pauseMicros) {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 0);
            long end = 7 * MS + tookMicros * 1_000;

            statement(pacer, 7 * MS, end, 1);

            assertThat(pacer.pauseNanos(end)).isEqualTo(pauseMicros * 1_000);
        }

        @Test
        void thePauseCountsFromTheStatementsEndAndTimeAlreadyPassedIsDeducted() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 0);
            statement(pacer, 10 * MS, 11 * MS, 1); // took 1 ms: the next may start at 15 ms

            assertThat(pacer.pauseNanos(11 * MS)).isEqualTo(4 * MS);
            assertThat(pacer.pauseNanos(13 * MS)).isEqualTo(2 * MS);
            assertThat(pacer.pauseNanos(15 * MS - 1)).isEqualTo(1);
            assertThat(pacer.pauseNanos(15 * MS)).isZero();
            assertThat(pacer.pauseNanos(60 * MS)).isZero(); // never negative
        }

        @Test
        void eachStatementIsMeasuredOnItsOwn() {
            BatchPacer pacer = new BatchPacer(2, 5 * MS, 0);
            statement(pacer, 0, 2 * MS, 1);
            statement(pacer, 20 * MS, 20 * MS + 500_000, 1);

            assertThat(pacer.pauseNanos(20 * MS + 500_000)).isEqualTo(MS);
        }

        @Test
        void aRatioOfZeroNeverWaits() {
            BatchPacer pacer = new BatchPacer(0, 5 * MS, 0);
            statement(pacer, 0, 3 * MS, 1);

            assertThat(pacer.pauseNanos(3 * MS)).isZero();
        }

        @Test
        void timesNearTheEndOfTheNanoTimeRangeStillWork() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 0);
            long start = Long.MAX_VALUE - MS / 2;
            statement(pacer, start, start + MS, 1); // overflows, as System.nanoTime may

            assertThat(pacer.pauseNanos(start + MS)).isEqualTo(4 * MS);
            assertThat(pacer.pauseNanos(start + 6 * MS)).isZero();
        }
    }

    @Nested
    class OnlyUnderLoad {
        /** Statements every {@code everyMicros} µs, each 1 ms long, carrying {@code items}, for {@code count}. */
        long steady(BatchPacer pacer, long from, int count, long everyMicros, int items) {
            long t = from;
            for (int i = 0; i < count; i++) {
                statement(pacer, t, t + MS, items);
                t += everyMicros * 1_000;
            }
            return t - everyMicros * 1_000 + MS; // the last statement's end
        }

        @Test
        void theRateIsTheItemsOverTheTimeBetweenStatementsSmoothed() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 1_500);

            steady(pacer, 0, 500, 2_000, 10); // 10 every 2 ms for a second: 5,000/s

            assertThat(pacer.rate()).isCloseTo(5_000, within(1.0));
        }

        @Test
        void belowTheRateNothingWaitsWhateverTheStatementsTake() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 1_500);

            long end = steady(pacer, 0, 500, 2_000, 2); // 1,000/s

            assertThat(pacer.rate()).isCloseTo(1_000, within(1.0));
            assertThat(pacer.pauseNanos(end)).isZero();
        }

        @Test
        void aboveItTheDutyCycleApplies() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 1_500);

            long end = steady(pacer, 0, 500, 2_000, 4); // 2,000/s

            assertThat(pacer.pauseNanos(end)).isEqualTo(4 * MS);
        }

        @Test
        void theFirstStatementSetsNoRateAndAFirstBurstIsWeighedByItsLength() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 1_500);
            statement(pacer, 0, MS, 1_000);
            assertThat(pacer.rate()).isZero(); // nothing to measure it against

            statement(pacer, 5 * MS, 6 * MS, 100); // 20,000/s for 5 ms: a tenth of the way (1 - e^-0.1)
            assertThat(pacer.rate()).isCloseTo(20_000 * (1 - Math.exp(-0.1)), within(0.5));
            assertThat(pacer.pauseNanos(6 * MS)).isEqualTo(4 * MS);
        }

        @Test
        void aQuietSpellEndsThePacing() {
            BatchPacer pacer = new BatchPacer(4, 5 * MS, 1_500);
            long end = steady(pacer, 0, 500, 2_000, 10);

            statement(pacer, end + 500 * MS, end + 501 * MS, 0); // half a second without a run

            assertThat(pacer.rate()).isLessThan(1);
            assertThat(pacer.pauseNanos(end + 501 * MS)).isZero();
        }
    }

    @Test
    void aNegativeOrMissingSettingIsRefused() {
        assertThatThrownBy(() -> new BatchPacer(-1, MS, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1.0");
        assertThatThrownBy(() -> new BatchPacer(Double.NaN, MS, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BatchPacer(4, -1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1 ns");
        assertThatThrownBy(() -> new BatchPacer(4, MS, -5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-5.0/s");
        assertThatThrownBy(() -> new BatchPacer(4, MS, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
