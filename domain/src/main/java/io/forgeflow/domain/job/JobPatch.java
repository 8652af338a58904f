package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A change to a job ({@code PATCH /api/jobs/{id}}): {@code values} holds the new values of the fields named in
 * {@code given} (API names, {@code cron_expr}); every other field keeps the job's value. A field given as null takes
 * its default, as at submission ({@code timezone} UTC, {@code priority} 5...), or none ({@code concurrency_key}).
 * {@code retry} and {@code notify} are replaced as a whole (a part left out of the new object is its default;
 * {@code notify: null} sends no more notices).
 * {@link #applyTo} checks the result with the submission's rules.
 */
public record JobPatch(JobDraft values, Set<String> given) {
    /** The fields a PATCH may change, in API.md's order. */
    public static final List<String> MUTABLE = List.of("name", "payload", "cron_expr", "run_at", "timezone", "priority",
            "max_attempts", "timeout_seconds", "catch_up", "queue", "concurrency_key", "max_concurrent", "overlap",
            "retry", "labels", "start_at", "end_at", "max_runs", "jitter_seconds", "pause_after_failures", "notify",
            "throttle");
    /** Fields fixed at submission: a different value is refused (submit a new job instead). */
    public static final List<String> FIXED = List.of("executor", "idempotency_key", "unique_key", "debounce");

    public JobPatch {
        Objects.requireNonNull(values, "values");
        given = Set.copyOf(given);
        for (String field : given) {
            if (!MUTABLE.contains(field) && !FIXED.contains(field)) {
                throw new IllegalArgumentException("not a field of a job: " + field);
            }
        }
    }

    /** Whether the patch names {@code field}. */
    public boolean gives(String field) {
        return given.contains(field);
    }

    /**
     * The job's definition with this patch applied, validated as a submission is. A one-off job stays one-off and a
     * recurring one recurring; {@code executor}, {@code idempotency_key}, {@code unique_key} and the sequence
     * ({@code sequence_key}, {@code on_dead}: not fields a PATCH takes) keep their values.
     *
     * @throws ValidationException naming the first field at fault and how to fix it
     */
    public JobSpec applyTo(JobSpec current) {
        fixed("executor", values.executor(), current.executor());
        fixed("idempotency_key", values.idempotencyKey(), current.idempotencyKey());
        fixed("unique_key", values.uniqueKey(), current.uniqueKey());
        if (gives("cron_expr") && current.isRecurring() && values.cronExpr() == null) {
            throw new ValidationException("cron_expr", "cron_expr cannot be removed: a recurring job stays recurring; "
                    + "pause or delete it, and submit a one-off job instead");
        }
        if (gives("cron_expr") && !current.isRecurring() && values.cronExpr() != null) {
            throw new ValidationException("cron_expr", "a one-off job cannot become recurring: submit a new job with "
                    + "cron_expr (and delete this one)");
        }
        if (gives("run_at") && current.isRecurring() && values.runAt() != null) {
            throw new ValidationException("run_at", "run_at applies to one-off jobs: change cron_expr to move a "
                    + "recurring job's schedule");
        }
        if (gives("debounce") && !Objects.equals(values.debounce() == null ? null : values.debounce().validate(),
                current.debounce())) {
            throw new ValidationException("debounce", "debounce cannot be changed: it decided how this job's "
                    + "submissions joined; submit a new job with the debounce you want");
        }
        boolean keyGiven = gives("concurrency_key");
        return new JobDraft(
                pick("name", values.name(), current.name()),
                current.executor(),
                gives("payload") ? values.payload() : current.payload(),
                pick("cron_expr", values.cronExpr(), current.cronExpr()),
                gives("run_at") ? values.runAt() : current.runAt(),
                gives("timezone") ? values.timezone() : current.timezone(),
                gives("priority") ? values.priority() : Integer.valueOf(current.priority()),
                gives("max_attempts") ? values.maxAttempts() : Integer.valueOf(current.maxAttempts()),
                gives("timeout_seconds") ? values.timeoutSeconds() : Integer.valueOf(current.timeoutSeconds()),
                gives("catch_up") ? values.catchUp() : current.catchUp().wireName(),
                current.idempotencyKey(),
                gives("queue") ? values.queue() : current.queue(),
                keyGiven ? values.concurrencyKey() : current.concurrencyKey(),
                gives("max_concurrent") ? values.maxConcurrent() : current.maxConcurrent(),
                gives("overlap") ? values.overlap() : current.overlap().wireName(),
                current.uniqueKey(), null,
                gives("retry") ? values.retryBaseSeconds() : retryPart(current, true),
                gives("retry") ? values.retryMaxSeconds() : retryPart(current, false),
                gives("labels") ? values.labels() : current.labels(), schedule(current.schedule()),
                current.sequenceKey(), current.sequenceOnDead(),
                gives("notify") ? values.notices() : current.notices(), current.debounce(),
                gives("throttle") ? values.throttle() : current.throttle()).validate();
    }

    /** The schedule controls: each part given replaces the job's (null removes it), the others stay. */
    private ScheduleControls schedule(ScheduleControls current) {
        ScheduleControls v = values.schedule() == null ? new ScheduleControls(null, null, null, null, null)
                : values.schedule();
        return new ScheduleControls(
                gives("start_at") ? v.startAt() : current.startAt(),
                gives("end_at") ? v.endAt() : current.endAt(),
                gives("max_runs") ? v.maxRuns() : current.maxRuns(),
                gives("jitter_seconds") ? v.jitterSeconds() : current.jitterSeconds(),
                gives("pause_after_failures") ? v.pauseAfterFailures() : current.pauseAfterFailures());
    }

    /** Whether the patch changes when the schedule fires: its window or jitter. */
    public boolean movesWindow() {
        return gives("start_at") || gives("end_at") || gives("max_runs") || gives("jitter_seconds");
    }

    private static Integer retryPart(JobSpec current, boolean base) {
        if (current.retry() == null) {
            return null;
        }
        return base ? current.retry().baseSeconds() : current.retry().maxSeconds();
    }

    /** Whether the patched spec moves the schedule: a new cron expression, time zone or one-off time. */
    public static boolean movesSchedule(JobSpec before, JobSpec after) {
        return !Objects.equals(before.cronExpr(), after.cronExpr()) || !before.timezone().equals(after.timezone())
                || !Objects.equals(before.runAt(), after.runAt());
    }

    private String pick(String field, String value, String current) {
        return gives(field) ? value : current;
    }

    private void fixed(String field, String value, String current) {
        if (gives(field) && !Objects.equals(value, current)) {
            throw new ValidationException(field, field + " cannot be changed: it is fixed when the job is submitted; "
                    + "submit a new job with the " + field + " you want (and delete this one)");
        }
    }
}
