package io.forgeflow.application.schedule;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.ScheduleControls;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.CronSchedules.Fire;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The next fire times of a cron expression in a time zone, as the scheduler will compute them, each with a note
 * when daylight saving moved or merged it. The expression and zone are checked as a job submission checks them.
 */
public final class PreviewSchedule {
    /** Fire times a preview returns when the caller does not say. */
    public static final int DEFAULT_COUNT = 10;
    /** The most fire times one preview returns. */
    public static final int MAX_COUNT = 100;

    private static final DateTimeFormatter MINUTES = DateTimeFormatter.ofPattern("HH:mm");
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");

    private final CronSchedules cron;
    private final Clock clock;

    public PreviewSchedule(CronSchedules cron, Clock clock) {
        this.cron = Objects.requireNonNull(cron, "cron");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * One previewed fire: the instant its run is due, its wall-clock time in the zone, and a note, or null, about daylight
     * saving or the schedule's end; {@code tick} the cron tick it stands for and {@code jitterSeconds} how far the job's
     * jitter moved it ({@code at} = tick + jitter).
     */
    public record PreviewedFire(Instant at, OffsetDateTime local, String note, Instant tick, int jitterSeconds) {
        public PreviewedFire(Instant at, OffsetDateTime local, String note) {
            this(at, local, note, at, 0);
        }
    }

    /**
     * @param cronExpr the expression, as a job's {@code cron_expr}
     * @param timezone an IANA zone name; null means UTC, as for a job
     * @param after    fire times strictly after this; null means now
     * @param count    how many, 1 to {@link #MAX_COUNT}
     */
    public List<PreviewedFire> preview(String cronExpr, String timezone, Instant after, int count) {
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count must be 1 to " + MAX_COUNT + ", was " + count);
        }
        cron.validate(cronExpr);
        ZoneId zone = zone(timezone);
        List<PreviewedFire> fires = new ArrayList<>();
        Instant cursor = after == null ? clock.instant() : after;
        while (fires.size() < count) {
            Optional<Fire> next = cron.fireAfter(cronExpr, zone, cursor);
            if (next.isEmpty()) {
                break;
            }
            Fire fire = next.get();
            fires.add(new PreviewedFire(fire.at(), fire.at().atZone(zone).toOffsetDateTime(), note(fire, zone)));
            cursor = fire.at();
        }
        return fires;
    }

    /**
     * The next fires of a schedule with controls (issue 45): only ticks inside start_at..end_at, at most the runs
     * max_runs leaves after {@code firedRuns}, each moved by the jitter of {@code jobId} (none when null). The last fire
     * of a schedule that ends is noted.
     */
    public List<PreviewedFire> preview(String cronExpr, String timezone, ScheduleControls controls, String jobId,
                                       int firedRuns, Instant after, int count) {
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count must be 1 to " + MAX_COUNT + ", was " + count);
        }
        cron.validate(cronExpr);
        ZoneId zone = zone(timezone);
        Integer left = controls.maxRuns() == null ? null : Math.max(0, controls.maxRuns() - firedRuns);
        List<PreviewedFire> fires = new ArrayList<>();
        Instant cursor = controls.searchFrom(after == null ? clock.instant() : after);
        while (fires.size() < count && (left == null || fires.size() < left)) {
            Optional<Fire> next = cron.fireAfter(cronExpr, zone, cursor);
            if (next.isEmpty() || controls.endedBy(next.get().at())) {
                break;
            }
            Fire fire = next.get();
            cursor = fire.at();
            int jitter = jobId == null ? 0 : (int) controls.jitterOf(jobId, fire.at()).toSeconds();
            Instant due = fire.at().plusSeconds(jitter);
            boolean lastByCount = left != null && fires.size() + 1 == left;
            boolean lastByEnd = !lastByCount && controls.endAt() != null
                    && cron.fireAfter(cronExpr, zone, fire.at()).map(f -> controls.endedBy(f.at())).orElse(true);
            fires.add(new PreviewedFire(due, due.atZone(zone).toOffsetDateTime(),
                    join(note(fire, zone), lastByCount ? "the last run (max_runs " + controls.maxRuns() + ")"
                            : lastByEnd ? "the last tick before end_at" : null), fire.at(), jitter));
        }
        return fires;
    }

    private static String join(String first, String second) {
        if (first == null) {
            return second;
        }
        return second == null ? first : first + "; " + second;
    }

    static ZoneId zone(String timezone) {
        String tz = timezone == null ? "UTC" : timezone;
        try {
            return ZoneId.of(tz);
        } catch (DateTimeException e) {
            throw new ValidationException("timezone", "timezone '" + tz.replaceAll("\\p{Cntrl}", "?")
                    + "' is not a known IANA time zone: use a name such as \"UTC\", \"Europe/Berlin\" or \"America/New_York\"");
        }
    }

    /** Why the wall clock differs from what the expression says, or null when it does not. */
    static String note(Fire fire, ZoneId zone) {
        LocalDateTime scheduled = fire.scheduled();
        String time = (scheduled.getSecond() == 0 ? MINUTES : SECONDS).format(scheduled);
        if (zone.getRules().getValidOffsets(scheduled).isEmpty()) {
            return time + " does not exist (DST gap): fired at the first valid instant";
        }
        if (zone.getRules().getValidOffsets(scheduled).size() > 1) {
            return time + " happens twice (DST overlap): fired at the first occurrence only";
        }
        return null;
    }
}
