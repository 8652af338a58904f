package io.forgeflow.bench;

import java.util.Arrays;

/** Percentiles of a set of latencies in nanoseconds, reported in milliseconds. */
record Stats(long count, double p50, double p95, double p99, double max) {
    static final Stats NONE = new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    static Stats of(long[] nanos, int n) {
        if (n == 0) {
            return NONE;
        }
        long[] sorted = Arrays.copyOf(nanos, n);
        Arrays.sort(sorted);
        return new Stats(n, ms(at(sorted, 0.50)), ms(at(sorted, 0.95)), ms(at(sorted, 0.99)), ms(sorted[n - 1]));
    }

    private static long at(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
