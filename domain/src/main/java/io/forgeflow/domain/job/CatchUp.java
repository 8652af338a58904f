package io.forgeflow.domain.job;

import java.util.Locale;

/** What a recurring job does with cron ticks missed while no scheduler ran. */
public enum CatchUp {
    /** Drop the missed ticks; continue with the next tick in the future. */
    SKIP,
    /** Enqueue exactly one run standing for all missed ticks, then continue with the next future tick. */
    ONCE;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static CatchUp fromWire(String value) {
        for (CatchUp c : values()) {
            if (c.wireName().equals(value)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown catch_up '" + value + "': use skip or once");
    }
}
