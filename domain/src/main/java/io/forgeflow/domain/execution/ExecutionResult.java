package io.forgeflow.domain.execution;

import io.forgeflow.domain.run.AttemptOutcome;

import java.util.Objects;

/**
 * How an attempt ended, as data: executors never throw for a failed execution.
 *
 * @param outcome SUCCEEDED, FAILED, TIMED_OUT or CANCELLED
 * @param output  captured output (already truncated to the context's limit), may be empty
 * @param error   what went wrong, in words an operator can act on; null on success
 */
public record ExecutionResult(AttemptOutcome outcome, String output, String error) {
    public ExecutionResult {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome == AttemptOutcome.LEASE_EXPIRED || outcome == AttemptOutcome.RELEASED) {
            throw new IllegalArgumentException(outcome.wireName() + " is decided by the queue, not by an executor");
        }
        output = output == null ? "" : output;
    }

    public static ExecutionResult succeeded(String output) {
        return new ExecutionResult(AttemptOutcome.SUCCEEDED, output, null);
    }

    public static ExecutionResult failed(String output, String error) {
        return new ExecutionResult(AttemptOutcome.FAILED, output, error);
    }

    public static ExecutionResult timedOut(String output, String error) {
        return new ExecutionResult(AttemptOutcome.TIMED_OUT, output, error);
    }

    public static ExecutionResult cancelled(String output, String error) {
        return new ExecutionResult(AttemptOutcome.CANCELLED, output, error);
    }
}
