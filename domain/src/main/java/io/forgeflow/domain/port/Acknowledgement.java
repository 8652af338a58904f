package io.forgeflow.domain.port;

import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.util.Objects;

/**
 * How an attempt ended and where the run goes next: a worker's acknowledgement, a release ({@code RELEASED}, back to
 * PENDING at once), or the leader's decision for a lease that expired ({@code LEASE_EXPIRED}).
 *
 * @param next       SUCCEEDED, PENDING (a retry due {@code retryDelay} after the database's now), DEAD or CANCELLED
 * @param retryDelay only for PENDING; zero otherwise
 * @param retryAfter only for PENDING, may be null: the downstream's requested wait as applied (capped), recorded on
 *                   the attempt row ({@code retry_after_seconds}); at most {@code retryDelay}
 */
public record Acknowledgement(RunFence fence, AttemptOutcome outcome, RunStatus next, Duration retryDelay,
                              String output, String error, Duration retryAfter) {
    public Acknowledgement {
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(next, "next");
        retryDelay = retryDelay == null ? Duration.ZERO : retryDelay;
        if (!RunStatus.RUNNING.canMoveTo(next)) {
            throw new IllegalArgumentException("a running run cannot become " + next.wireName());
        }
        if (next != RunStatus.PENDING && !retryDelay.isZero()) {
            throw new IllegalArgumentException("only a retry (pending) has a delay");
        }
        if (retryAfter != null && (next != RunStatus.PENDING || retryAfter.compareTo(retryDelay) > 0)) {
            throw new IllegalArgumentException("only a retry (pending) has a retry-after, at most its delay");
        }
    }

    /** An acknowledgement without a retry-after. */
    public Acknowledgement(RunFence fence, AttemptOutcome outcome, RunStatus next, Duration retryDelay, String output,
                           String error) {
        this(fence, outcome, next, retryDelay, output, error, null);
    }
}
