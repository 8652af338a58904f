package io.forgeflow.domain.port;

import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Operators' and the API's view of runs: queries and the controls that are not a worker's. */
public interface RunRepository {

    /** Stores a new pending run (a manual trigger). */
    Run insert(Run run);

    Optional<Run> find(String id);

    /** Every attempt of the run, oldest first. */
    List<Attempt> attempts(String runId);

    /** Runs newest first, optionally of one job and/or in one status; {@code cursor} from a previous page or null. */
    default Page<Run> list(String jobId, RunStatus status, int limit, String cursor) {
        return listMatching(RunFilter.of(jobId, status), limit, cursor);
    }

    /** Runs newest first that pass {@code filter}; {@code cursor} from a previous page of the same filter, or null. */
    Page<Run> listMatching(RunFilter filter, int limit, String cursor);

    /**
     * As {@link #list}, for a response: outputs cut to their tail and payloads left out ({@link ListedRun}), and the
     * page held to {@code budget} (it may end before {@code limit}; its cursor continues after its last item), read that
     * way from the store rather than loaded whole. By default, the whole runs of {@link #list}, none marked cut, with no
     * budget (fakes that hold little).
     */
    default Page<ListedRun> listForDisplay(String jobId, RunStatus status, int limit, String cursor,
                                           ListBudget budget) {
        return listForDisplayMatching(RunFilter.of(jobId, status), limit, cursor, budget);
    }

    /** As {@link #listForDisplay(String, RunStatus, int, String, ListBudget)}, of the runs that pass {@code filter}. */
    default Page<ListedRun> listForDisplayMatching(RunFilter filter, int limit, String cursor, ListBudget budget) {
        Page<Run> page = listMatching(filter, limit, cursor);
        return new Page<>(page.items().stream().map(run -> new ListedRun(run, false)).toList(), page.nextCursor());
    }

    /** How many runs are in each status (every status present, zero when none). */
    default Map<RunStatus, Long> countByStatus() {
        return countByStatus(null);
    }

    /** As {@link #countByStatus()}, of one tenant's runs ({@code tenant}: null for every tenant). */
    Map<RunStatus, Long> countByStatus(String tenant);

    /** PENDING → CANCELLED, compare-and-set on the status. Empty when the run is not pending (any more). */
    Optional<Run> cancelPending(String id, String reason);

    /** Asks the worker of a RUNNING run to stop it. Empty when the run is not running (any more). */
    Optional<Run> requestCancel(String id);

    /**
     * DEAD or CANCELLED → PENDING, due now, with {@code attemptBudget} more attempts; the attempt history stays.
     * Empty when the run is in neither status (any more).
     */
    Optional<Run> requeue(String id, int attemptBudget);
}
