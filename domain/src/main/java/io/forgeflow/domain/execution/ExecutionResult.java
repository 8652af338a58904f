package io.forgeflow.domain.execution;

import io.forgeflow.domain.run.AttemptOutcome;

import java.time.Duration;
import java.util.Objects;

/**
 * How an attempt ended, as data: executors never throw for a failed execution.
 *
 * @param outcome    SUCCEEDED, FAILED, TIMED_OUT, CANCELLED, SNOOZED (the run comes back after {@code retryAfter},
 *                   its snooze, without spending an attempt) or GAVE_UP (the run is cancelled with {@code error} as
 *                   its reason)
 * @param output     captured output (already truncated to the context's limit), may be empty
 * @param error      what went wrong, in words an operator can act on; null on success
 * @param permanent  FAILED only: another attempt cannot succeed (a 404, a listed exit code, an invalid payload), so
 *                   the run goes to DEAD at once whatever attempts are left
 * @param retryAfter FAILED, may be null: the downstream asked not to be called again before this long (an HTTP
 *                   {@code Retry-After}); the retry policy caps it. SNOOZED, required: the snooze, from zero to
 *                   {@link #MAX_SNOOZE}
 */
public record ExecutionResult(AttemptOutcome outcome, String output, String error, boolean permanent,
                              Duration retryAfter) {
    /** The longest a run may snooze at once: 30 days. */
    public static final Duration MAX_SNOOZE = Duration.ofDays(30);

    public ExecutionResult {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome == AttemptOutcome.LEASE_EXPIRED || outcome == AttemptOutcome.RELEASED) {
            throw new IllegalArgumentException(outcome.wireName() + " is decided by the queue, not by an executor");
        }
        if (permanent && outcome != AttemptOutcome.FAILED) {
            throw new IllegalArgumentException("only a failed attempt can be permanent, not " + outcome.wireName());
        }
        if (outcome == AttemptOutcome.SNOOZED) {
            if (retryAfter == null || retryAfter.isNegative() || retryAfter.compareTo(MAX_SNOOZE) > 0) {
                throw new IllegalArgumentException("a snooze must be from 0 to " + MAX_SNOOZE.toSeconds()
                        + " seconds (30 days), was " + retryAfter);
            }
        } else if (retryAfter != null && (outcome != AttemptOutcome.FAILED || permanent)) {
            throw new IllegalArgumentException("only a failed attempt that will be retried has a retry-after");
        }
        if (retryAfter != null && retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
        }
        output = output == null ? "" : output;
    }

    /** A result that is neither permanent nor carries a retry-after (the form plug-ins written before them use). */
    public ExecutionResult(AttemptOutcome outcome, String output, String error) {
        this(outcome, output, error, false, null);
    }

    public static ExecutionResult succeeded(String output) {
        return new ExecutionResult(AttemptOutcome.SUCCEEDED, output, null);
    }

    /** A failure that may succeed on another attempt: retried while attempts are left. */
    public static ExecutionResult failed(String output, String error) {
        return new ExecutionResult(AttemptOutcome.FAILED, output, error);
    }

    /** A failure no retry can cure: the run goes to DEAD after this attempt. */
    public static ExecutionResult failedPermanently(String output, String error) {
        return new ExecutionResult(AttemptOutcome.FAILED, output, error, true, null);
    }

    /** A failure whose downstream asked to be called again no earlier than {@code retryAfter} from now. */
    public static ExecutionResult failedRetryAfter(String output, String error, Duration retryAfter) {
        return new ExecutionResult(AttemptOutcome.FAILED, output, error, false,
                Objects.requireNonNull(retryAfter, "retryAfter"));
    }

    public static ExecutionResult timedOut(String output, String error) {
        return new ExecutionResult(AttemptOutcome.TIMED_OUT, output, error);
    }

    public static ExecutionResult cancelled(String output, String error) {
        return new ExecutionResult(AttemptOutcome.CANCELLED, output, error);
    }

    /**
     * The run asked to come back in {@code snooze} (0 to {@link #MAX_SNOOZE}): it goes back to pending, due then,
     * and the attempt is not counted against its budget.
     */
    public static ExecutionResult snoozed(String output, Duration snooze) {
        Objects.requireNonNull(snooze, "snooze");
        String wait = snooze.toMillis() % 1000 == 0 ? snooze.toSeconds() + "s" : snooze.toMillis() + "ms";
        return new ExecutionResult(AttemptOutcome.SNOOZED, output, "snoozed for " + wait, false, snooze);
    }

    /** The run gave up: it is cancelled with {@code reason}, whatever attempts are left. */
    public static ExecutionResult gaveUp(String output, String reason) {
        return new ExecutionResult(AttemptOutcome.GAVE_UP, output,
                "gave up: " + (reason == null || reason.isBlank() ? "no reason given" : reason));
    }

    /** The snooze of a SNOOZED result; null for any other. */
    public Duration snooze() {
        return outcome == AttemptOutcome.SNOOZED ? retryAfter : null;
    }
}
