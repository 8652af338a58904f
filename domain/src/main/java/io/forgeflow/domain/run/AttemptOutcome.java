package io.forgeflow.domain.run;

import java.util.Locale;

/** How one attempt of a run ended. Stored in run_attempts and never rewritten. */
public enum AttemptOutcome {
    /** The executor reported success. */
    SUCCEEDED,
    /** The executor reported failure (non-zero exit, non-2xx status, an error). */
    FAILED,
    /** The attempt ran past the job's timeout_seconds and was killed. */
    TIMED_OUT,
    /** The worker stopped heartbeating and the leader recovered the run. */
    LEASE_EXPIRED,
    /** An operator cancelled the run (or its job) while it ran. */
    CANCELLED,
    /** A draining worker gave the run back before finishing it; not counted against the job's attempts. */
    RELEASED,
    /**
     * The run asked to come back later (an embedded handler's {@code Snooze}, a shell job's exit code 75, an http job's
     * {@code X-ForgeFlow-Snooze-Seconds}): back to pending after the snooze, not counted against its attempts.
     */
    SNOOZED,
    /**
     * The run gave up by itself (an embedded handler's {@code GiveUp}, a shell job's exit code 76, an http job's
     * {@code X-ForgeFlow-Give-Up}): cancelled with its reason, no further attempt.
     */
    GAVE_UP;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static AttemptOutcome fromWire(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
