package io.forgeflow.admin.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * How the console writes time: local time with its zone for reading, UTC beside it for comparing with logs, and
 * "12 s ago" for heartbeats. The zone and clock are injected so tests do not depend on the machine.
 */
public final class Times {
    public static final String NONE = "—";
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss zzz");
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'");
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final DateTimeFormatter SHORT = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss");

    private final ZoneId zone;
    private final Clock clock;

    public Times(ZoneId zone, Clock clock) {
        this.zone = Objects.requireNonNull(zone, "zone");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public static Times system() {
        return new Times(ZoneId.systemDefault(), Clock.systemUTC());
    }

    public ZoneId zone() {
        return zone;
    }

    public Instant now() {
        return clock.instant();
    }

    /** {@code 2026-07-01 11:30:00 CEST} in the operator's zone, or a dash. */
    public String local(Instant instant) {
        return instant == null ? NONE : LOCAL.format(instant.atZone(zone));
    }

    /** {@code 2026-07-01 11:30:00 CEST} in the given zone, or a dash. */
    public static String in(Instant instant, ZoneId zone) {
        return instant == null ? NONE : LOCAL.format(instant.atZone(zone));
    }

    /** {@code 2026-07-01 09:30:00Z}, or a dash. */
    public static String utc(Instant instant) {
        return instant == null ? NONE : UTC.format(instant.atOffset(ZoneOffset.UTC));
    }

    /** {@code 07-01 11:30:05} in the operator's zone: for narrow table columns (see {@link #zoneName()}). */
    public String compact(Instant instant) {
        return instant == null ? NONE : SHORT.format(instant.atZone(zone));
    }

    /** The operator's zone as a column header says it, e.g. {@code Europe/Berlin}. */
    public String zoneName() {
        return zone.getId();
    }

    /** {@code 11:30:05} in the operator's zone: for the live feed. */
    public String clockTime(Instant instant) {
        return instant == null ? NONE : CLOCK.format(instant.atZone(zone));
    }

    /** {@code 4 s ago}, {@code 3 min ago}, {@code 2 h ago}, {@code 5 d ago}; a dash for null. */
    public String ago(Instant instant) {
        if (instant == null) {
            return NONE;
        }
        long s = Math.max(0, Duration.between(instant, clock.instant()).getSeconds());
        if (s < 60) {
            return s + " s ago";
        }
        if (s < 3600) {
            return s / 60 + " min ago";
        }
        if (s < 86_400) {
            return s / 3600 + " h ago";
        }
        return s / 86_400 + " d ago";
    }

    /** The first line of a possibly long text (an error), shortened to max characters. */
    public static String firstLine(String text, int max) {
        if (text == null || text.isBlank()) {
            return "";
        }
        String line = text.strip().lines().findFirst().orElse("");
        return line.length() <= max ? line : line.substring(0, max - 1) + "…";
    }
}
