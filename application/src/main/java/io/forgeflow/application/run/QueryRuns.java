package io.forgeflow.application.run;

import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.support.Paging;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.List;
import java.util.Map;

/** Reads runs for the API: one run with its attempts, newest-first pages, counts by status. */
public final class QueryRuns {
    private final RunRepository runs;
    private final HandlerWaits waits;
    private final ListBudget budget;

    public QueryRuns(RunRepository runs) {
        this(runs, HandlerWaits.NONE);
    }

    /** @param waits what handler runs wait for (the API's {@code waiting_for}) */
    public QueryRuns(RunRepository runs, HandlerWaits waits) {
        this(runs, waits, ListBudget.DEFAULT);
    }

    /** @param budget the most bytes the items of one page for a response hold */
    public QueryRuns(RunRepository runs, HandlerWaits waits, ListBudget budget) {
        this.runs = runs;
        this.waits = java.util.Objects.requireNonNull(waits, "waits");
        this.budget = java.util.Objects.requireNonNull(budget, "budget");
    }

    /** What handler runs wait for, for the API's {@code waiting_for}. */
    public HandlerWaits waits() {
        return waits;
    }

    public RunDetail get(String id) {
        Run run = runs.find(id).orElseThrow(() -> new NotFoundException("run", id));
        return new RunDetail(run, runs.attempts(id));
    }

    public Page<Run> list(String jobId, RunStatus status, int limit, String cursor) {
        return listMatching(io.forgeflow.domain.port.RunFilter.of(jobId, status), limit, cursor);
    }

    public Page<Run> listMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor) {
        Paging.checkLimit(limit);
        return Paging.withCursor(cursor, () -> runs.listMatching(filter, limit, cursor));
    }

    /**
     * A page for a response: outputs cut to their tail, no payloads ({@link ListedRun}), held to the byte budget (it may
     * end before {@code limit}; its cursor continues after its last item).
     */
    public Page<ListedRun> listForDisplay(String jobId, RunStatus status, int limit, String cursor) {
        return listForDisplayMatching(io.forgeflow.domain.port.RunFilter.of(jobId, status), limit, cursor);
    }

    /** A page for a response of the runs that pass {@code filter}. */
    public Page<ListedRun> listForDisplayMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor) {
        Paging.checkLimit(limit);
        return Paging.withCursor(cursor, () -> runs.listForDisplayMatching(filter, limit, cursor, budget));
    }

    public Map<RunStatus, Long> stats() {
        return runs.countByStatus();
    }

    /** How many runs of {@code tenant} are in each status (null: of every tenant). */
    public Map<RunStatus, Long> stats(String tenant) {
        return runs.countByStatus(tenant);
    }

    /** A run and its attempts, oldest first. */
    public record RunDetail(Run run, List<Attempt> attempts) {
        public RunDetail {
            attempts = List.copyOf(attempts);
        }
    }
}
