package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

/**
 * Debounce of a one-off job's submissions by key (issue 44, README "Flow control"). Submissions with the same key and
 * executor collapse into one run. {@code trailing}: each submission within the period replaces the pending run's
 * payload and pushes its due time to that submission + {@code period_seconds}, never past the first + {@code
 * max_wait_seconds}; the run executes once with the last payload. {@code leading}: the first runs at once, later ones
 * within {@code period_seconds} of it are answered with that run. Decided in PostgreSQL under the key's lock.
 * As submitted any part may be null; {@link #validate} checks it and applies the defaults.
 */
public record Debounce(String key, Integer periodSeconds, Integer maxWaitSeconds, String edge) {
    public static final String TRAILING = "trailing";
    public static final String LEADING = "leading";
    public static final int MAX_PERIOD_SECONDS = 86_400;
    public static final int MAX_WAIT_SECONDS = 7 * 86_400;
    /** A trailing debounce without max_wait_seconds waits at most this many periods. */
    public static final int DEFAULT_WAIT_PERIODS = 10;

    /**
     * The checked debounce: key 1-200 characters without control characters, period 1-86,400 s, edge trailing
     * (default) or leading, max wait (trailing only) from the period to 7 days, by default 10 periods (at most 7 days).
     * Throws a {@link ValidationException} naming {@code debounce.<part>}.
     */
    public Debounce validate() {
        String k = Flow.key("debounce.key", key, "\"user-42-profile\"");
        if (periodSeconds == null) {
            throw new ValidationException("debounce.period_seconds", "debounce.period_seconds is required: how long "
                    + "after a submission the run waits for another one with the same key, e.g. 30");
        }
        int period = Flow.range("debounce.period_seconds", periodSeconds, 1, MAX_PERIOD_SECONDS);
        String e = edge == null ? TRAILING : edge;
        if (!TRAILING.equals(e) && !LEADING.equals(e)) {
            throw new ValidationException("debounce.edge", "debounce.edge must be \"trailing\" (one run with the last "
                    + "payload after the burst) or \"leading\" (the first runs at once, the rest within the period "
                    + "join it), was '" + Flow.printable(e) + "'");
        }
        if (LEADING.equals(e)) {
            if (maxWaitSeconds != null) {
                throw new ValidationException("debounce.max_wait_seconds", "debounce.max_wait_seconds applies to "
                        + "the trailing edge only (a leading run starts at once): leave it out");
            }
            return new Debounce(k, period, null, e);
        }
        int wait = maxWaitSeconds == null ? (int) Math.min((long) period * DEFAULT_WAIT_PERIODS, MAX_WAIT_SECONDS)
                : Flow.range("debounce.max_wait_seconds", maxWaitSeconds, period, MAX_WAIT_SECONDS);
        return new Debounce(k, period, wait, e);
    }

    /** Whether the first submission runs at once. */
    public boolean leading() {
        return LEADING.equals(edge);
    }
}
