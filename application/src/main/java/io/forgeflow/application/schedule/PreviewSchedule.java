package io.forgeflow.application.schedule;

import io.forgeflow.domain.error.ValidationException;
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

    /** One previewed fire: the instant, its wall-clock time in the zone, and a note, or null, about daylight saving. */
    public record PreviewedFire(Instant at, OffsetDateTime local, String note) {
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
