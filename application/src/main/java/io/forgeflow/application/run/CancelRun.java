package io.forgeflow.application.run;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.Optional;

/**
 * Cancels a run: a pending run becomes cancelled at once; the worker holding a running run is asked to stop it
 * (it kills the process and records the attempt as cancelled within a few seconds). Cancelling a cancelled run
 * changes nothing; a run that already succeeded or died cannot be cancelled (409).
 */
public final class CancelRun {
    private static final int RACE_RETRIES = 3;
    private static final String REASON = "cancelled by an operator";
    private final RunRepository runs;
    private final Tracing tracing;

    public CancelRun(RunRepository runs) {
        this(runs, Tracing.NONE);
    }

    /** Records the run span of a pending run it cancels (a running one's worker records its end). */
    public CancelRun(RunRepository runs, Tracing tracing) {
        this.runs = runs;
        this.tracing = tracing;
    }

    public Run cancel(String id) {
        for (int i = 0; i < RACE_RETRIES; i++) {
            Run run = runs.find(id).orElseThrow(() -> new NotFoundException("run", id));
            Optional<Run> changed;
            switch (run.status()) {
                case PENDING:
                case WAITING:
                    changed = runs.cancelPending(id, REASON);
                    if (changed.isPresent()) {
                        tracing.runEnded(run, RunStatus.CANCELLED, REASON); // as read: with its trace context
                    }
                    break;
                case RUNNING:
                    changed = runs.requestCancel(id);
                    break;
                case CANCELLED:
                    return run;
                default:
                    throw new ConflictException("run " + id + " is " + run.status().wireName()
                            + " and cannot be cancelled: only pending and running runs can");
            }
            if (changed.isPresent()) {
                return changed.get();
            }
            // the run moved on between the read and the write (claimed, finished); look again
        }
        throw new ConflictException("run " + id + " kept changing while this request ran; read it again and retry");
    }
}
