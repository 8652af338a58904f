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
    RELEASED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static AttemptOutcome fromWire(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
