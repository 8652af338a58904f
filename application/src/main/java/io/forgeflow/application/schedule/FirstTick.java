package io.forgeflow.application.schedule;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.ScheduleControls;
import io.forgeflow.domain.port.CronSchedules;

import java.time.Instant;
import java.util.Optional;

/**
 * The first tick of a recurring job from a moment on, inside its window ({@code start_at}, {@code end_at}): where
 * submission, an edit and a resume start the schedule.
 */
public final class FirstTick {
    private FirstTick() {
    }

    /** The first tick at or after start_at and after {@code now}; empty when none comes before end_at (or ever). */
    public static Optional<Instant> after(CronSchedules cron, JobSpec spec, Instant now) {
        ScheduleControls controls = spec.schedule();
        return cron.nextAfter(spec.cronExpr(), spec.zone(), controls.searchFrom(now))
                .filter(tick -> !controls.endedBy(tick));
    }

    /** As {@link #after}, for a new or edited schedule: no tick left is a 422 naming the field at fault. */
    public static Instant required(CronSchedules cron, JobSpec spec, Instant now) {
        return after(cron, spec, now).orElseThrow(() -> spec.schedule().endAt() == null
                ? new ValidationException("cron_expr", "cron_expr '" + spec.cronExpr() + "' never fires again")
                : new ValidationException("end_at", "cron_expr '" + spec.cronExpr() + "' does not fire between "
                + (spec.schedule().startAt() == null ? "now" : "start_at") + " and end_at (" + spec.schedule().endAt()
                + ") in " + spec.timezone() + ": move end_at later"));
    }
}
