package io.forgeflow.application.worker;

/**
 * Decides how long a loop that writes to the database in batches (the claimer, the acknowledger) waits for company
 * before its next statement: a duty cycle. After a statement that took {@code d}, the next one starts no sooner than
 * {@code ratio × d} after it ended (never more than {@code cap}), so the loop spends at most {@code 1 / (1 + ratio)}
 * of its time in the database; and only while items arrive faster than {@code aboveRatePerSecond}.
 *
 * <p>Why: every claim and every acknowledgement costs the database a fixed 0.2–0.3 ms, whatever its size
 * (docs/BENCHMARKS.md). A loop that sends its next statement as soon as anything is there sends them back to back
 * under load, each carrying the few runs that arrived during the one before, and the database spends its time on
 * the fixed costs. The pause follows the database's own speed: when it answers in 0.2 ms the pause is under a
 * millisecond; when it is loaded and answers slowly, the pause grows, each statement carries more runs, and the load
 * falls.
 *
 * <p>The arrival rate is estimated from the statements themselves: the items one carried over the time since the one
 * before it started, smoothed with a time constant of {@value #SMOOTHING_NANOS} ns (a quiet spell of that length
 * forgets most of the past, so one burst does not pace the quiet that follows). Not thread-safe: each loop owns its
 * pacer.
 */
final class BatchPacer {
    /** The time constant of the arrival rate estimate: 50 ms. */
    static final long SMOOTHING_NANOS = 50_000_000L;

    private final double ratio;
    private final long capNanos;
    private final double aboveRatePerSecond;
    private double rate;
    private long previousStartNanos;
    private long lastStartNanos;
    private long lastEndNanos;
    private boolean ended;

    /**
     * @param ratio              the pause after a statement, as a multiple of the statement's duration
     * @param capNanos           the longest pause
     * @param aboveRatePerSecond items per second above which the loop is paced (0: always)
     */
    BatchPacer(double ratio, long capNanos, double aboveRatePerSecond) {
        if (!(ratio >= 0) || capNanos < 0 || !(aboveRatePerSecond >= 0)) {
            throw new IllegalArgumentException("ratio, cap and rate must not be negative, were " + ratio + ", "
                    + capNanos + " ns and " + aboveRatePerSecond + "/s");
        }
        this.ratio = ratio;
        this.capNanos = capNanos;
        this.aboveRatePerSecond = aboveRatePerSecond;
    }

    /** A statement starts at {@code nowNanos} (System.nanoTime). */
    void started(long nowNanos) {
        lastStartNanos = nowNanos;
    }

    /**
     * The statement started last ended at {@code nowNanos}, carrying {@code items}: everything that had arrived since
     * the one before it started.
     */
    void ended(long nowNanos, int items) {
        if (ended) {
            long elapsed = Math.max(1, lastStartNanos - previousStartNanos);
            double observed = items * 1e9 / elapsed;
            rate += (1 - Math.exp(-elapsed / (double) SMOOTHING_NANOS)) * (observed - rate);
        }
        previousStartNanos = lastStartNanos;
        lastEndNanos = nowNanos;
        ended = true;
    }

    /** How long to wait from {@code nowNanos} before the next statement: zero unless the loop is under load. */
    long pauseNanos(long nowNanos) {
        if (!ended || rate < aboveRatePerSecond) {
            return 0;
        }
        long took = Math.max(0, lastEndNanos - lastStartNanos);
        long pause = (long) Math.min(capNanos, ratio * took);
        return Math.max(0, lastEndNanos + pause - nowNanos);
    }

    /** The estimated arrival rate, items per second. */
    double rate() {
        return rate;
    }
}
