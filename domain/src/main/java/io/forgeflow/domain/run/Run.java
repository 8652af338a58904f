package io.forgeflow.domain.run;

import io.forgeflow.domain.tenant.Tenants;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.backoff.RetryOverride;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One execution of a job, possibly over several attempts. Immutable. It has no lifecycle methods: every transition
 * is SQL in adapters-postgres, checked against {@link RunStatus}'s table (docs/architecture.md, "Transitions and the
 * SQL that performs them"); the application's in-memory fakes move runs with their testkit's RunTransitions, by the
 * same table (issue 40). The one move made here, {@link #waitingForParents()}, builds a new run before it is stored.
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
 * @param tenant         its job's tenant ({@link Tenants})
 */
public record Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
                  Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
                  Instant leaseExpiresAt, String output, String error, String executor,
                  Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
                  RunTrace trace, RetryOverride retry, Map<String, String> labels, int snoozes, String tenant) {

    /** A run of the default tenant. */
    public Run(String id, String jobId, RunStatus status, int attempt, int maxAttempts, int priority,
               Instant scheduledFor, Instant startedAt, Instant finishedAt, String workerId,
               Instant leaseExpiresAt, String output, String error, String executor,
               Map<String, Object> payload, int timeoutSeconds, boolean cancelRequested, Instant createdAt,
               RunTrace trace, RetryOverride retry, Map<String, String> labels, int snoozes) {
        this(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, trace,
                retry, labels, snoozes, Tenants.DEFAULT);
    }

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
                trace, retry, newLabels, snoozes, tenant);
    }

    public Run {
        labels = labels == null ? Map.of() : labels;
        tenant = Tenants.orDefault(tenant);
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
                trace, override, labels, snoozes, tenant);
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
                trace, retry, labels, snoozes, tenant);
    }

    /** This run with its trace context. */
    public Run withTrace(RunTrace runTrace) {
        return new Run(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, runTrace,
                retry, labels, snoozes, tenant);
    }

    /** This run in {@code newTenant} (a store copies its job's). */
    public Run inTenant(String newTenant) {
        return new Run(id, jobId, status, attempt, maxAttempts, priority, scheduledFor, startedAt, finishedAt, workerId,
                leaseExpiresAt, output, error, executor, payload, timeoutSeconds, cancelRequested, createdAt, trace,
                retry, labels, snoozes, newTenant);
    }

    /** Whether another attempt may start after the current one fails. */
    public boolean hasAttemptsLeft() {
        return attempt < maxAttempts;
    }

    /** The timeout of one attempt. */
    public Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }
}
