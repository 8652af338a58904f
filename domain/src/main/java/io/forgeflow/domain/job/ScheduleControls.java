package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * How an operator steers a recurring job's schedule beyond its cron expression (issue 45, README "Schedules"): the
 * window it fires in ({@code start_at}, {@code end_at}: ticks at or after the start and at or before the end), how
 * many runs it fires at most ({@code max_runs}; it completes after the last), how far each tick's run is spread
 * ({@code jitter_seconds}, deterministic) and after how many dead runs in a row it pauses ({@code pause_after_failures}).
 * Every part is optional; {@link #NONE} is a plain schedule. As submitted (in a {@link JobDraft}) any part may be
 * null; {@link #validate} checks the ranges and gives jitter its default 0.
 */
public record ScheduleControls(Instant startAt, Instant endAt, Integer maxRuns, Integer jitterSeconds,
                               Integer pauseAfterFailures) {
    /** No window, no limit, no jitter, no pause on failure. */
    public static final ScheduleControls NONE = new ScheduleControls(null, null, null, 0, null);
    /** The highest max_runs. */
    public static final int MAX_RUNS_LIMIT = 1_000_000;
    /** The widest jitter: a day. */
    public static final int MAX_JITTER_SECONDS = 86_400;
    /** The most dead runs in a row pause_after_failures may wait for. */
    public static final int MAX_PAUSE_AFTER_FAILURES = 1_000;

    /** Whether no part was given (a draft) or all are the defaults (a spec). */
    public boolean isPlain() {
        return startAt == null && endAt == null && maxRuns == null && jitter() == 0 && pauseAfterFailures == null;
    }

    /** Whether a job with these controls pauses once {@code deadInARow} of its runs have died one after another. */
    public boolean pausesAfter(int deadInARow) {
        return pauseAfterFailures != null && deadInARow >= pauseAfterFailures;
    }

    /** The jitter in seconds, 0 when none. */
    public int jitter() {
        return jitterSeconds == null ? 0 : jitterSeconds;
    }

    /**
     * The controls checked: each part in range, the end after the start, only on a recurring job. Throws a
     * {@link ValidationException} naming the part at fault.
     */
    public ScheduleControls validate(boolean recurring) {
        if (!recurring) {
            String given = firstGiven();
            if (given != null) {
                throw new ValidationException(given, given + " applies to recurring jobs only: give cron_expr, or "
                        + "leave " + given + " out (a one-off job has a single run at run_at)");
            }
            return NONE;
        }
        if (startAt != null && endAt != null && !endAt.isAfter(startAt)) {
            throw new ValidationException("end_at", "end_at (" + endAt + ") must be later than start_at (" + startAt
                    + "): the schedule fires between the two");
        }
        check("max_runs", maxRuns, 1, MAX_RUNS_LIMIT);
        check("jitter_seconds", jitterSeconds, 0, MAX_JITTER_SECONDS);
        check("pause_after_failures", pauseAfterFailures, 1, MAX_PAUSE_AFTER_FAILURES);
        return new ScheduleControls(startAt, endAt, maxRuns, jitter(), pauseAfterFailures);
    }

    private String firstGiven() {
        if (startAt != null) {
            return "start_at";
        }
        if (endAt != null) {
            return "end_at";
        }
        if (maxRuns != null) {
            return "max_runs";
        }
        if (jitterSeconds != null && jitterSeconds != 0) {
            return "jitter_seconds";
        }
        return pauseAfterFailures != null ? "pause_after_failures" : null;
    }

    private static void check(String field, Integer value, int min, int max) {
        if (value != null && (value < min || value > max)) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    /**
     * Where to look for the first tick from {@code now}: the first tick strictly after the returned instant is the
     * first the window allows (a tick exactly at start_at fires).
     */
    public Instant searchFrom(Instant now) {
        return startAt != null && startAt.isAfter(now) ? startAt.minusNanos(1) : now;
    }

    /** Whether a tick at {@code tick} lies in the window: not before start_at, not after end_at. */
    public boolean allows(Instant tick) {
        return (startAt == null || !tick.isBefore(startAt)) && (endAt == null || !tick.isAfter(endAt));
    }

    /** Whether a tick at {@code tick} comes after the window has closed (no later tick can fire). */
    public boolean endedBy(Instant tick) {
        return endAt != null && tick.isAfter(endAt);
    }

    /** Whether a job that has fired {@code fired} runs may fire no more. */
    public boolean exhausted(int fired) {
        return maxRuns != null && fired >= maxRuns;
    }

    /**
     * The delay of the run of {@code tick}: whole seconds from 0 to jitter_seconds, from a hash of the job's id and the
     * tick, so every scheduler node computes the same value. Zero without jitter.
     */
    public Duration jitterOf(String jobId, Instant tick) {
        int spread = jitter();
        if (spread == 0) {
            return Duration.ZERO;
        }
        return Duration.ofSeconds(Long.remainderUnsigned(hash(jobId.toLowerCase(Locale.ROOT) + "@" + tick.getEpochSecond()),
                spread + 1L));
    }

    /** FNV-1a, 64 bits, of the UTF-8 bytes: stable across nodes and versions (never String.hashCode's contract). */
    static long hash(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
