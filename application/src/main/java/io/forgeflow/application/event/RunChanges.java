package io.forgeflow.application.event;

import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.WorkerHolder;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Publishes the run changes the worker and the rescuer made, built from what the run queue returned (the runs a claim
 * took, the fences an acknowledgement, release or recovery applied), after the call returned: never from inside the
 * persistence adapter's transaction. {@link RunEvents#publish} only hands the changes to a background sender.
 */
public final class RunChanges {
    /** Publishes nothing. */
    public static final RunChanges NONE = new RunChanges(RunEvents.NONE, Clock.systemUTC());

    private final RunEvents events;
    private final Clock clock;

    /** @param clock when a change committed, as this node sees it ({@link RunChange#at()}) */
    public RunChanges(RunEvents events, Clock clock) {
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The API or the scheduler changed these runs (committed): no worker's change, so no worker id. */
    public void changed(List<Run> runs) {
        if (runs.isEmpty() || events == RunEvents.NONE) {
            return;
        }
        Instant at = clock.instant();
        List<RunChange> changes = new ArrayList<>(runs.size());
        for (Run run : runs) {
            changes.add(RunChange.of(run, null, at));
        }
        events.publish(changes);
    }

    /** A claim by {@code workerId} took these runs (now running). */
    public void claimed(String workerId, List<Run> runs) {
        if (runs.isEmpty() || events == RunEvents.NONE) {
            return;
        }
        Instant at = clock.instant();
        List<RunChange> changes = new ArrayList<>(runs.size());
        for (Run run : runs) {
            changes.add(RunChange.of(run, workerId, at));
        }
        events.publish(changes);
    }

    /** These attempts ended as their acknowledgements (or the rescuer's decisions) say; {@code jobIds} in order. */
    public void ended(List<Acknowledgement> applied, List<String> jobIds) {
        if (applied.isEmpty() || events == RunEvents.NONE) {
            return;
        }
        Instant at = clock.instant();
        List<RunChange> changes = new ArrayList<>(applied.size());
        for (int i = 0; i < applied.size(); i++) {
            RunFence fence = applied.get(i).fence();
            String jobId = jobIds.get(i);
            if (jobId != null) {
                changes.add(new RunChange(fence.runId(), jobId, applied.get(i).next(), fence.attempt(),
                        WorkerHolder.labelOf(fence.workerId()), at));
            }
        }
        events.publish(changes);
    }

    /** These attempts were released: their runs are pending again. */
    public void released(Collection<RunFence> applied, Map<RunFence, String> jobIds) {
        if (applied.isEmpty() || events == RunEvents.NONE) {
            return;
        }
        Instant at = clock.instant();
        List<RunChange> changes = new ArrayList<>(applied.size());
        for (RunFence fence : applied) {
            String jobId = jobIds.get(fence);
            if (jobId != null) {
                changes.add(new RunChange(fence.runId(), jobId, RunStatus.PENDING, fence.attempt(),
                        WorkerHolder.labelOf(fence.workerId()), at));
            }
        }
        events.publish(changes);
    }
}
