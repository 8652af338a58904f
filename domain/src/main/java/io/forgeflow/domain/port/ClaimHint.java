package io.forgeflow.domain.port;

import io.forgeflow.domain.run.Run;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Where a claim may start: past this run in claim order (priority, then due time, then id). A claimer gives the last
 * run of its previous claim when that claim took all it asked for, so that a drain's next claim does not read again
 * the index entries of every run claimed before (they stay until VACUUM). A run of that priority placed before the
 * hint is not seen by a hinted claim: the claimer drops its hint after a short while, and after any claim that comes
 * up short. A hint only saves reading; an implementation may ignore it and read from the start.
 */
public record ClaimHint(int priority, Instant scheduledFor, String runId) {
    public ClaimHint {
        Objects.requireNonNull(scheduledFor, "scheduledFor");
        Objects.requireNonNull(runId, "runId");
    }

    /** Past the last run of a claim's answer, which is in claim order; null for an empty answer. */
    public static ClaimHint after(List<Run> claimedInOrder) {
        if (claimedInOrder.isEmpty()) {
            return null;
        }
        Run last = claimedInOrder.get(claimedInOrder.size() - 1);
        return new ClaimHint(last.priority(), last.scheduledFor(), last.id());
    }
}
