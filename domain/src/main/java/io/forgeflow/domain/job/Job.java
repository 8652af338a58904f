package io.forgeflow.domain.job;

import io.forgeflow.domain.tenant.Tenants;
import io.forgeflow.domain.trace.TraceContext;

import java.time.Instant;
import java.util.Objects;

/**
 * A job: its definition and where its schedule stands.
 *
 * @param nextRunAt a recurring job: when the scheduler enqueues its next run; a one-off job: when its run is
 *                  due, until the run ends; null when nothing is coming (paused, cancelled, completed jobs)
 * @param submittedVia how the job came in: {@value #VIA_REST} (the API, the CLI, the desktop) or {@value #VIA_SQL}
 *                     ({@code forgeflow.enqueue()} in an application's transaction)
 * @param trace the W3C context of the submission (its span, or the caller's when tracing is off); null when none
 * @param schedule runs fired so far and the pause note ({@link ScheduleState#NONE} when none)
 * @param tenant the tenant it belongs to ({@link Tenants}; {@value Tenants#DEFAULT} when none was named); never changes
 */
public record Job(String id, JobSpec spec, JobStatus status, Instant nextRunAt, Instant createdAt, Instant updatedAt,
                  String submittedVia, TraceContext trace, ScheduleState schedule, String tenant) {
    /** Submitted over the REST API (also the CLI and the desktop). */
    public static final String VIA_REST = "rest";
    /** Enqueued by {@code forgeflow.enqueue()} in SQL. */
    public static final String VIA_SQL = "sql";

    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(submittedVia, "submittedVia");
        schedule = schedule == null ? ScheduleState.NONE : schedule;
        tenant = Tenants.orDefault(tenant);
    }

    /** A job of the default tenant. */
    public Job(String id, JobSpec spec, JobStatus status, Instant nextRunAt, Instant createdAt, Instant updatedAt,
               String submittedVia, TraceContext trace, ScheduleState schedule) {
        this(id, spec, status, nextRunAt, createdAt, updatedAt, submittedVia, trace, schedule, Tenants.DEFAULT);
    }

    public Job(String id, JobSpec spec, JobStatus status, Instant nextRunAt, Instant createdAt, Instant updatedAt,
               String submittedVia, TraceContext trace) {
        this(id, spec, status, nextRunAt, createdAt, updatedAt, submittedVia, trace, ScheduleState.NONE);
    }

    public Job(String id, JobSpec spec, JobStatus status, Instant nextRunAt, Instant createdAt, Instant updatedAt,
               String submittedVia) {
        this(id, spec, status, nextRunAt, createdAt, updatedAt, submittedVia, null);
    }

    /** A job submitted over the API. */
    public Job(String id, JobSpec spec, JobStatus status, Instant nextRunAt, Instant createdAt, Instant updatedAt) {
        this(id, spec, status, nextRunAt, createdAt, updatedAt, VIA_REST);
    }

    /** A job just submitted over the API: active, nothing fired yet, under the submission's trace (null: none). */
    public static Job submitted(String id, JobSpec spec, Instant nextRunAt, Instant now, TraceContext trace) {
        return submitted(id, spec, nextRunAt, now, trace, Tenants.DEFAULT);
    }

    /** A job just submitted over the API in {@code tenant}. */
    public static Job submitted(String id, JobSpec spec, Instant nextRunAt, Instant now, TraceContext trace,
                                String tenant) {
        return new Job(id, spec, JobStatus.ACTIVE, nextRunAt, now, now, VIA_REST, trace, ScheduleState.NONE, tenant);
    }

    public Job withStatus(JobStatus next, Instant nextRun, Instant now) {
        return new Job(id, spec, next, nextRun, createdAt, now, submittedVia, trace, schedule, tenant);
    }

    public Job withTrace(TraceContext newTrace) {
        return new Job(id, spec, status, nextRunAt, createdAt, updatedAt, submittedVia, newTrace, schedule, tenant);
    }

    public Job withSchedule(ScheduleState state) {
        return new Job(id, spec, status, nextRunAt, createdAt, updatedAt, submittedVia, trace, state, tenant);
    }

    /**
     * When the next run is due: {@link #nextRunAt} (the next tick of a recurring job) moved by the job's jitter for
     * that tick; null when nothing is coming. What the API shows as {@code next_run_at}.
     */
    public Instant nextDueAt() {
        if (nextRunAt == null || !spec.isRecurring()) {
            return nextRunAt;
        }
        return nextRunAt.plus(spec.schedule().jitterOf(id, nextRunAt));
    }
}
