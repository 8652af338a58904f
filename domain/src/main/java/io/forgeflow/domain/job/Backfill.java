package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * A backfill of a recurring job ({@code POST /api/jobs/{id}/backfill}, README "Backfill"): one run per tick of its
 * schedule from {@code from} to {@code to} (both included), in the job's time zone and daylight-saving policy, each
 * run's {@code scheduled_for} its tick. A tick that already has a run gets none (the runs of a job are unique per
 * tick), so a second call adds nothing. {@code overlap} says how the backfilled runs run: {@code allow} side by side
 * (within the job's queue and concurrency limits), {@code skip} or {@code queue_one} one at a time, oldest tick first.
 */
public record Backfill(Instant from, Instant to, String overlap, boolean onlyMissing) {
    /** The most ticks one backfill may enqueue. */
    public static final int MAX_TICKS = 10_000;
    /** Backfilled runs side by side. */
    public static final String ALLOW = "allow";

    public Backfill {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(overlap, "overlap");
    }

    /**
     * The request checked: both ends given, {@code to} not before {@code from}, a known overlap (default {@code allow};
     * {@code cancel_running} would cancel the backfill's own runs), {@code only_missing} true (the default).
     * Throws a {@link ValidationException} naming the field at fault.
     */
    public static Backfill of(Instant from, Instant to, String overlap, Boolean onlyMissing) {
        if (from == null) {
            throw new ValidationException("from", "from is required: the first tick to backfill, an RFC 3339 time "
                    + "such as \"2026-04-01T00:00:00Z\"");
        }
        if (to == null) {
            throw new ValidationException("to", "to is required: the last tick to backfill, an RFC 3339 time such as "
                    + "\"2026-04-08T00:00:00Z\"");
        }
        if (to.isBefore(from)) {
            throw new ValidationException("to", "to (" + to + ") must not be before from (" + from + ")");
        }
        String o = overlap == null ? ALLOW : overlap.toLowerCase(Locale.ROOT);
        if (!o.equals(ALLOW) && !o.equals(Overlap.SKIP.wireName()) && !o.equals(Overlap.QUEUE_ONE.wireName())) {
            throw new ValidationException("overlap", "overlap of a backfill must be \"allow\" (its runs side by side), "
                    + "\"skip\" or \"queue_one\" (one at a time, oldest tick first), was '"
                    + (overlap.length() > 40 ? overlap.substring(0, 40) + "…" : overlap) + "'");
        }
        if (onlyMissing != null && !onlyMissing) {
            throw new ValidationException("only_missing", "only_missing must be true (the default): a tick has at "
                    + "most one run; requeue a tick's run to run it again");
        }
        return new Backfill(from, to, o, true);
    }

    /** Whether the backfilled runs run one at a time. */
    public boolean oneAtATime() {
        return !ALLOW.equals(overlap);
    }

    /** The 422 of a range with more than {@link #MAX_TICKS} ticks, naming {@code to}. */
    public ValidationException tooManyTicks(Instant tickAfterLimit) {
        return new ValidationException("to", "from " + from + " to " + to + " holds more than " + MAX_TICKS
                + " ticks (the " + (MAX_TICKS + 1) + "th is " + tickAfterLimit + "): move to earlier, and backfill the "
                + "rest in another call");
    }
}
