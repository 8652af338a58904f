package io.forgeflow.domain.run;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.backoff.RetryOverride;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One execution of a job, possibly over several attempts. Immutable: each lifecycle method checks the
 * transition table of {@link RunStatus} and returns a new {@code Run}, or throws
 * {@link IllegalRunTransitionException}.
 *
 * <p>Invariant (also a CHECK constraint in the database): a run is RUNNING exactly when it has a worker and a
 * lease. {@code attempt} counts attempts started and never decreases, so (id, attempt) names one attempt
 * forever; that is what fences late writes.
 *
 * @param payload        the executor's payload, as parsed JSON (maps, lists, strings, numbers, booleans)
 * @param cancelRequested an operator asked the worker holding this run to stop it
 * @param trace          its trace context and queue, when read from the store or given for a trigger; may be null
 * @param retry          the job's retry policy, copied when the run was made (or by a PATCH while pending); null:
 *                       the deciding node's defaults
 * @param labels         its job's labels when the run was created (or last followed a PATCH); empty when none
 * @param snoozes        how many of its attempts ended snoozed (the run asked to come back later; not counted
 *                       against its attempts)
 */
public record Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
                  Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
                  Instant leaseExpiresAt, String output, String error, String executor,
                  Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
                  RunTrace trace, RetryOverride retry, Map<String, String> labels, int snoozes) {

    /** A run that never snoozed. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
               RunTrace trace, RetryOverride retry, Map<String, String> labels) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, trace,
                retry, labels, 0);
    }

    /** A run without trace context or retry policy of its own. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt,
                (RunTrace) null, (RetryOverride) null, Map.of());
    }

    /** A run with trace context and no retry policy of its own. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
               RunTrace trace) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, trace,
                (RetryOverride) null, Map.of());
    }

    /** A run with a retry policy of its own and no trace context. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
               RetryOverride retry) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt,
                (RunTrace) null, retry, Map.of());
    }

    /** A run with trace context and a retry policy of its own, without labels. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
               RunTrace trace, RetryOverride retry) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, trace,
                retry, Map.of());
    }

    /** A run with labels, without trace context or retry policy of its own. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
               Map<String, String> labels) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt,
                (RunTrace) null, (RetryOverride) null, labels);
    }

    /** The same run with {@code newLabels} (a store copies its job's). */
    public Run withLabels(Map<String, String> newLabels) {
        return new Run(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt,
                workerId, leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt,
                trace, retry, newLabels, snoozes);
    }

    public Run {
        labels = labels == null ? Map.of() : labels;
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(scheduledFor, "scheduledFor");
        Objects.requireNonNull(executor, "executor");
        payload = payload == null ? Map.of() : payload;
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must be >= 0, was " + attempt);
        }
        if (snoozes < 0) {
            throw new IllegalArgumentException("snoozes must be >= 0, was " + snoozes);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        }
        if ((status == RunStatus.RUNNING) != (workerId != null && leaseExpiresAt != null)) {
            throw new IllegalArgumentException("a run is running exactly when it has a worker and a lease (status "
                    + status.wireName() + ", worker " + workerId + ", lease " + leaseExpiresAt + ")");
        }
    }

    /** The same run with the job's retry policy {@code override} (null: the node's defaults). */
    public Run withRetry(RetryOverride override) {
        return new Run(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt,
                workerId, leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt,
                trace, override, labels, snoozes);
    }

    /** A fresh pending run of a job, due at {@code dueAt}. */
    public static Run pending(String id, String jobId, int maxAttempts, int priority, Instant dueAt, String executor,
                              Map<String, Object> payload, int timeoutSeconds, Instant now) {
        return new Run(id, jobId, RunStatus.PENDING, 0, maxAttempts, priority, dueAt, null, null, null, null,
                null, null, executor, payload, timeoutSeconds, false, now, (RunTrace) null, (RetryOverride) null,
                Map.of());
    }

    /** A fresh pending run as a fresh waiting one: it waits for its job's parents (docs/API.md, "Workflows"). */
    public Run waitingForParents() {
        if (status != RunStatus.PENDING || attempt != 0) {
            throw new IllegalRunTransitionException(id, status, RunStatus.WAITING);
        }
        return new Run(id, jobId, RunStatus.WAITING, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt,
                workerId, leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt,
                trace, retry, labels, snoozes);
    }

    /** This run with its trace context. */
    public Run withTrace(RunTrace runTrace) {
        return new Run(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, runTrace,
                retry, labels, snoozes);
    }

    /** PENDING → RUNNING: a worker takes the run for a new attempt until {@code leaseUntil}. */
    public Run claim(String worker, Instant now, Instant leaseUntil) {
        Objects.requireNonNull(worker, "worker");
        check(RunStatus.RUNNING);
        return new Run(id, jobId, RunStatus.RUNNING, attempt + 1, maxAttempts, priority, scheduledFor, now, null,
                worker, leaseUntil, null, null, executor, payload, timeoutSeconds, false, createdAt,
                trace, retry, labels, snoozes);
    }

    /** RUNNING → SUCCEEDED. */
    public Run succeed(Instant now, String newOutput) {
        check(RunStatus.SUCCEEDED);
        return finished(RunStatus.SUCCEEDED, now, newOutput, null);
    }

    /**
     * RUNNING → PENDING (a retry due after the decision's delay) or DEAD, as {@code decision} says. Used for
     * executor failures, timeouts and expired leases alike.
     */
    public Run fail(Instant now, String newOutput, String newError, FailureDecision decision) {
        if (decision.retries()) {
            check(RunStatus.PENDING);
            return new Run(id, jobId, RunStatus.PENDING, attempt, maxAttempts, priority, now.plus(decision.delay()),
                    startedAt, null, null, null, newOutput, newError, executor, payload, timeoutSeconds, false,
                    createdAt, trace, retry, labels, snoozes);
        }
        check(RunStatus.DEAD);
        return finished(RunStatus.DEAD, now, newOutput, newError);
    }

    /** PENDING or RUNNING → CANCELLED. */
    public Run cancel(Instant now, String reason) {
        check(RunStatus.CANCELLED);
        return finished(RunStatus.CANCELLED, now, output, reason);
    }

    /** RUNNING: ask the worker to stop; the run stays RUNNING until the worker acknowledges. */
    public Run requestCancel() {
        if (status != RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(id, status, RunStatus.CANCELLED);
        }
        return new Run(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt,
                workerId, leaseExpiresAt, output, error, executor, payload, timeoutSeconds, true, createdAt,
                trace, retry, labels, snoozes);
    }

    /**
     * DEAD or CANCELLED → PENDING with a fresh budget of {@code attemptBudget} attempts, due now. The attempt
     * counter keeps counting (so attempt numbers stay unique), and the history is kept.
     */
    public Run requeue(Instant now, int attemptBudget) {
        if (attemptBudget < 1) {
            throw new IllegalArgumentException("attemptBudget must be >= 1, was " + attemptBudget);
        }
        check(RunStatus.PENDING);
        if (status == RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(id, status, RunStatus.PENDING);
        }
        return new Run(id, jobId, RunStatus.PENDING, attempt, attempt + attemptBudget, priority, now, null, null,
                null, null, output, error, executor, payload, timeoutSeconds, false, createdAt,
                trace, retry, labels, snoozes);
    }

    /**
     * RUNNING → PENDING, due now, by a draining worker: the attempt does not count against the budget.
     */
    public Run release(Instant now) {
        if (status != RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(id, status, RunStatus.PENDING);
        }
        return new Run(id, jobId, RunStatus.PENDING, attempt, maxAttempts + 1, priority, now, startedAt, null, null,
                null, output, error, executor, payload, timeoutSeconds, false, createdAt,
                trace, retry, labels, snoozes);
    }

    /**
     * RUNNING → PENDING, due {@code snooze} after {@code now}: the run asked to come back later. The attempt does not
     * count against the budget and the run's snoozes go up by one; its error stays.
     */
    public Run snooze(Instant now, Duration snooze, String newOutput) {
        Objects.requireNonNull(snooze, "snooze");
        if (status != RunStatus.RUNNING) {
            throw new IllegalRunTransitionException(id, status, RunStatus.PENDING);
        }
        return new Run(id, jobId, RunStatus.PENDING, attempt, maxAttempts + 1, priority, now.plus(snooze), startedAt,
                null, null, null, newOutput, error, executor, payload, timeoutSeconds, false, createdAt,
                trace, retry, labels, snoozes + 1);
    }

    /** Whether another attempt may start after the current one fails. */
    public boolean hasAttemptsLeft() {
        return attempt < maxAttempts;
    }

    /** The timeout of one attempt. */
    public Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    private Run finished(RunStatus next, Instant now, String newOutput, String newError) {
        return new Run(id, jobId, next, attempt, maxAttempts, priority, scheduledFor, startedAt, now, null, null,
                newOutput, newError, executor, payload, timeoutSeconds, false, createdAt,
                trace, retry, labels, snoozes);
    }

    private void check(RunStatus next) {
        if (!status.canMoveTo(next)) {
            throw new IllegalRunTransitionException(id, status, next);
        }
    }
}
