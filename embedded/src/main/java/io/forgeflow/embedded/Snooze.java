package io.forgeflow.embedded;

import io.forgeflow.domain.execution.ExecutionResult;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a {@link JobHandler} whose input is not ready yet: {@code throw Snooze.of(Duration.ofMinutes(5))}. The run
 * goes back to {@code pending}, due that long after the attempt ended, without spending an attempt (its
 * {@code snoozes} go up by one, its history shows the attempt {@code snoozed}). Any output the handler wrote is kept.
 * A snooze is 0 to 30 days; an operator's cancel during the attempt still cancels the run.
 */
public final class Snooze extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Duration duration;

    private Snooze(Duration duration) {
        super("snoozed for " + duration.toSeconds() + "s", null, false, false);
        this.duration = duration;
    }

    /**
     * A snooze of {@code duration}.
     *
     * @throws IllegalArgumentException when it is negative or longer than 30 days
     */
    public static Snooze of(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.compareTo(ExecutionResult.MAX_SNOOZE) > 0) {
            throw new IllegalArgumentException("a snooze must be from 0 to 30 days, was " + duration);
        }
        return new Snooze(duration);
    }

    /** How long the run waits before its next attempt. */
    public Duration duration() {
        return duration;
    }
}
