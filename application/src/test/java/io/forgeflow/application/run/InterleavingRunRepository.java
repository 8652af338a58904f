package io.forgeflow.application.run;

import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RunRepository} that lets a test act just before each compare-and-set reaches the real repository, as
 * another writer (a claimer, a draining worker, a second operator) committing between a use case's read and its write
 * would.
 */
final class InterleavingRunRepository implements RunRepository {
    private final RunRepository delegate;
    private volatile Runnable beforeCancelPending = () -> { };
    private volatile Runnable beforeRequestCancel = () -> { };
    private volatile Runnable beforeRequeue = () -> { };
    final AtomicInteger cancelPendingCalls = new AtomicInteger();

    InterleavingRunRepository(RunRepository delegate) {
        this.delegate = delegate;
    }

    InterleavingRunRepository beforeEachCancelPending(Runnable action) {
        this.beforeCancelPending = action;
        return this;
    }

    InterleavingRunRepository beforeEachRequestCancel(Runnable action) {
        this.beforeRequestCancel = action;
        return this;
    }

    InterleavingRunRepository beforeEachRequeue(Runnable action) {
        this.beforeRequeue = action;
        return this;
    }

    @Override
    public Run insert(Run run) {
        return delegate.insert(run);
    }

    @Override
    public Optional<Run> find(String id) {
        return delegate.find(id);
    }

    @Override
    public List<Attempt> attempts(String runId) {
        return delegate.attempts(runId);
    }

    @Override
    public Page<Run> listMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor) {
        return delegate.listMatching(filter, limit, cursor);
    }

    @Override
    public Map<RunStatus, Long> countByStatus(String tenant) {
        return delegate.countByStatus(tenant);
    }

    @Override
    public Optional<Run> cancelPending(String id, String reason) {
        cancelPendingCalls.incrementAndGet();
        beforeCancelPending.run();
        return delegate.cancelPending(id, reason);
    }

    @Override
    public Optional<Run> requestCancel(String id) {
        beforeRequestCancel.run();
        return delegate.requestCancel(id);
    }

    @Override
    public Optional<Run> requeue(String id, int attemptBudget) {
        beforeRequeue.run();
        return delegate.requeue(id, attemptBudget);
    }
}
