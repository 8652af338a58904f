package io.forgeflow.application.testkit;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.run.IllegalRunTransitionException;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The run transitions of the in-memory fakes, each checked against {@link RunStatus#canMoveTo}, the one table
 * (issue 40). In the node every transition is SQL in adapters-postgres (docs/architecture.md, "Transitions and the
 * SQL that performs them"), so the domain's {@link Run} has no such methods: only tests moved runs through them.
 * Each returns a new {@code Run} or throws {@link IllegalRunTransitionException}.
 */
public final class RunTransitions {
    private RunTransitions() {
    }

    /** PENDING → RUNNING: {@code worker} takes the run for a new attempt until {@code leaseUntil}. */
    public static Run claim(Run run, String worker, Instant now, Instant leaseUntil) {
        Objects.requireNonNull(worker, "worker");
        check(run, RunStatus.RUNNING);
        return new Run(run.id(), run.jobId(), RunStatus.RUNNING, run.attempt() + 1, run.maxAttempts(), run.priority(),
                run.scheduledFor(), now, null, worker, leaseUntil, null, null, run.executor(), run.payload(),
                run.timeoutSeconds(), false, run.createdAt(), run.trace(), run.retry(), run.labels(), run.snoozes(), run.tenant());
    }

    /** RUNNING → SUCCEEDED. */
    public static Run succeed(Run run, Instant now, String output) {
        check(run, RunStatus.SUCCEEDED);
        return finished(run, RunStatus.SUCCEEDED, now, output, null);
    }

    /**
     * RUNNING → PENDING (a retry due after the decision's delay) or DEAD, as {@code decision} says: executor failures,
     * timeouts and expired leases alike.
     */
    public static Run fail(Run run, Instant now, String output, String error, FailureDecision decision) {
        if (decision.retries()) {
            check(run, RunStatus.PENDING);
            return new Run(run.id(), run.jobId(), RunStatus.PENDING, run.attempt(), run.maxAttempts(), run.priority(),
                    now.plus(decision.delay()), run.startedAt(), null, null, null, output, error, run.executor(),
                    run.payload(), run.timeoutSeconds(), false, run.createdAt(), run.trace(), run.retry(),
                    run.labels(), run.snoozes(), run.tenant());
        }
        check(run, RunStatus.DEAD);
        return finished(run, RunStatus.DEAD, now, output, error);
    }

    /** WAITING, PENDING or RUNNING → CANCELLED, with {@code reason} as its error; its output stays. */
    public static Run cancel(Run run, Instant now, String reason) {
        check(run, RunStatus.CANCELLED);
        return finished(run, RunStatus.CANCELLED, now, run.output(), reason);
    }

    /** RUNNING: ask the worker to stop; the run stays RUNNING until the worker acknowledges. */
    public static Run requestCancel(Run run) {
        if (run.status() != RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(run.id(), run.status(), RunStatus.CANCELLED);
        }
        check(run, RunStatus.CANCELLED); // where the worker's acknowledgement will take it
        return new Run(run.id(), run.jobId(), run.status(), run.attempt(), run.maxAttempts(), run.priority(),
                run.scheduledFor(), run.startedAt(), run.finishedAt(), run.workerId(), run.leaseExpiresAt(),
                run.output(), run.error(), run.executor(), run.payload(), run.timeoutSeconds(), true, run.createdAt(),
                run.trace(), run.retry(), run.labels(), run.snoozes(), run.tenant());
    }

    /**
     * DEAD or CANCELLED → PENDING with a fresh budget of {@code attemptBudget} attempts, due now. The attempt counter
     * keeps counting (so attempt numbers stay unique), and the history is kept.
     */
    public static Run requeue(Run run, Instant now, int attemptBudget) {
        if (attemptBudget < 1) {
            throw new IllegalArgumentException("attemptBudget must be >= 1, was " + attemptBudget);
        }
        check(run, RunStatus.PENDING);
        if (run.status() == RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(run.id(), run.status(), RunStatus.PENDING);
        }
        return new Run(run.id(), run.jobId(), RunStatus.PENDING, run.attempt(), run.attempt() + attemptBudget,
                run.priority(), now, null, null, null, null, run.output(), run.error(), run.executor(), run.payload(),
                run.timeoutSeconds(), false, run.createdAt(), run.trace(), run.retry(), run.labels(), run.snoozes(), run.tenant());
    }

    /** RUNNING → PENDING, due now, by a draining worker: the attempt does not count against the budget. */
    public static Run release(Run run, Instant now) {
        if (run.status() != RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(run.id(), run.status(), RunStatus.PENDING);
        }
        check(run, RunStatus.PENDING);
        return new Run(run.id(), run.jobId(), RunStatus.PENDING, run.attempt(), run.maxAttempts() + 1, run.priority(),
                now, run.startedAt(), null, null, null, run.output(), run.error(), run.executor(), run.payload(),
                run.timeoutSeconds(), false, run.createdAt(), run.trace(), run.retry(), run.labels(), run.snoozes(), run.tenant());
    }

    /**
     * RUNNING → PENDING, due {@code snooze} after {@code now}: the run asked to come back later. The attempt does not
     * count against the budget and the run's snoozes go up by one; its error stays.
     */
    public static Run snooze(Run run, Instant now, Duration snooze, String output) {
        Objects.requireNonNull(snooze, "snooze");
        if (run.status() != RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(run.id(), run.status(), RunStatus.PENDING);
        }
        check(run, RunStatus.PENDING);
        return new Run(run.id(), run.jobId(), RunStatus.PENDING, run.attempt(), run.maxAttempts() + 1, run.priority(),
                now.plus(snooze), run.startedAt(), null, null, null, output, run.error(), run.executor(),
                run.payload(), run.timeoutSeconds(), false, run.createdAt(), run.trace(), run.retry(), run.labels(),
                run.snoozes() + 1, run.tenant());
    }

    private static Run finished(Run run, RunStatus next, Instant now, String output, String error) {
        return new Run(run.id(), run.jobId(), next, run.attempt(), run.maxAttempts(), run.priority(),
                run.scheduledFor(), run.startedAt(), now, null, null, output, error, run.executor(), run.payload(),
                run.timeoutSeconds(), false, run.createdAt(), run.trace(), run.retry(), run.labels(), run.snoozes(), run.tenant());
    }

    private static void check(Run run, RunStatus next) {
        if (!run.status().canMoveTo(next)) {
            throw new IllegalRunTransitionException(run.id(), run.status(), next);
        }
    }
}
