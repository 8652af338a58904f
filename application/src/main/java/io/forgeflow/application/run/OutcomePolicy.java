package io.forgeflow.application.run;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Where a run goes after one of its attempts ended: the one place that decides, for the worker's acknowledgements and
 * the leader's lease rescuer alike. A success ends the run; a cancellation (or any end of an attempt an operator asked
 * to cancel) or a give-up cancels it; a snooze sends it back to pending after the snooze it asked for, whatever
 * attempts are left (the queue does not count the attempt); a failure, a timeout or an expired lease is retried after the retry policy's jittered delay
 * while attempts are left, and is dead at the last attempt or when the failure is permanent. The backoff is the run's
 * own (its job's {@code retry}) where it has one, else this node's.
 */
public final class OutcomePolicy {
    private final RetryPolicy retryPolicy;
    private final RandomGenerator random;

    /** @param random the source of retry jitter */
    public OutcomePolicy(RetryPolicy retryPolicy, RandomGenerator random) {
        this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * The next status of a run whose attempt {@code attempt} (of {@code maxAttempts}) ended with {@code outcome}.
     *
     * @param permanent  the failure is permanent (dead at once)
     * @param retryAfter the downstream's requested wait, or null; for a snooze, the snooze (required)
     */
    public Next after(AttemptOutcome outcome, int attempt, int maxAttempts, boolean cancelRequested, boolean permanent,
                      Duration retryAfter) {
        return after(outcome, attempt, maxAttempts, cancelRequested, permanent, retryAfter, null);
    }

    /**
     * As {@link #after(AttemptOutcome, int, int, boolean, boolean, Duration)}, for a run with its job's own retry
     * policy {@code retry} (null: this node's): a retry is due after the job's backoff, each part it leaves out taken
     * from this node's.
     */
    public Next after(AttemptOutcome outcome, int attempt, int maxAttempts, boolean cancelRequested, boolean permanent,
                      Duration retryAfter, RetryOverride retry) {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome == AttemptOutcome.RELEASED) {
            throw new IllegalArgumentException("a released attempt is not decided: the run goes back as it was");
        }
        if (outcome == AttemptOutcome.SUCCEEDED) {
            return new Next(RunStatus.SUCCEEDED, Duration.ZERO, null);
        }
        if (outcome == AttemptOutcome.CANCELLED || outcome == AttemptOutcome.GAVE_UP || cancelRequested) {
            return new Next(RunStatus.CANCELLED, Duration.ZERO, null);
        }
        if (outcome == AttemptOutcome.SNOOZED) {
            return new Next(RunStatus.PENDING, Objects.requireNonNull(retryAfter, "a snooze needs its duration"), null);
        }
        FailureDecision decision = RetryOverride.effective(retry, retryPolicy).decide(Math.max(1, attempt), maxAttempts, permanent, retryAfter, random);
        return new Next(decision.retries() ? RunStatus.PENDING : RunStatus.DEAD, decision.delay(), decision);
    }

    /** The rescuer's decision for a run whose lease expired: the acknowledgement the lost worker could not send. */
    public Acknowledgement afterExpiredLease(ExpiredLease lease) {
        Next next = after(AttemptOutcome.LEASE_EXPIRED, lease.fence().attempt(), lease.maxAttempts(),
                lease.cancelRequested(), false, null, lease.retry());
        String error = "lease expired: worker " + lease.fence().workerId() + " stopped heartbeating during attempt "
                + lease.fence().attempt();
        return new Acknowledgement(lease.fence(), AttemptOutcome.LEASE_EXPIRED, next.status(), next.delay(), null,
                error);
    }

    /**
     * A decision: the run's next status, the delay before a retry (zero otherwise), and the retry policy's decision
     * when the attempt failed (null for a success or a cancellation).
     */
    public record Next(RunStatus status, Duration delay, FailureDecision failure) {
        public Next {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(delay, "delay");
        }

        /** The downstream's wait as applied, for a retry that has one; else null. */
        public Duration retryAfter() {
            return failure == null ? null : failure.retryAfter();
        }
    }
}
