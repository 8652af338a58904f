package io.forgeflow.application.event;

import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The run repository as the API uses it: a run an operator inserted, cancelled or requeued is published, as the port
 * returned it, after the call returned (so after its commit). Asking a worker to stop a running run changes no
 * status: the worker's acknowledgement publishes the end.
 */
public final class PublishedRuns implements RunRepository {
    private final RunRepository runs;
    private final RunChanges changes;

    public PublishedRuns(RunRepository runs, RunChanges changes) {
        this.runs = Objects.requireNonNull(runs, "runs");
        this.changes = Objects.requireNonNull(changes, "changes");
    }

    @Override
    public Run insert(Run run) {
        Run stored = runs.insert(run);
        changes.changed(List.of(stored));
        return stored;
    }

    @Override
    public Optional<Run> find(String id) {
        return runs.find(id);
    }

    @Override
    public List<Attempt> attempts(String runId) {
        return runs.attempts(runId);
    }

    @Override
    public Page<Run> list(String jobId, RunStatus status, int limit, String cursor) {
        return runs.list(jobId, status, limit, cursor);
    }

    @Override
    public Page<ListedRun> listForDisplay(String jobId, RunStatus status, int limit, String cursor,
                                          ListBudget budget) {
        return runs.listForDisplay(jobId, status, limit, cursor, budget);
    }

    @Override
    public Page<Run> listMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor) {
        return runs.listMatching(filter, limit, cursor);
    }

    @Override
    public Page<ListedRun> listForDisplayMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor,
                                                  ListBudget budget) {
        return runs.listForDisplayMatching(filter, limit, cursor, budget);
    }

    @Override
    public Map<RunStatus, Long> countByStatus() {
        return runs.countByStatus();
    }

    @Override
    public Map<RunStatus, Long> countByStatus(String tenant) {
        return runs.countByStatus(tenant);
    }

    @Override
    public Optional<Run> cancelPending(String id, String reason) {
        return published(runs.cancelPending(id, reason));
    }

    @Override
    public Optional<Run> requestCancel(String id) {
        return runs.requestCancel(id);
    }

    @Override
    public Optional<Run> requeue(String id, int attemptBudget) {
        return published(runs.requeue(id, attemptBudget));
    }

    private Optional<Run> published(Optional<Run> run) {
        run.ifPresent(r -> changes.changed(List.of(r)));
        return run;
    }
}
