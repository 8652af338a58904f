package io.forgeflow.application.testkit;

import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link RunRepository} over an {@link InMemoryStore}; see the store for the transaction and clock rules. */
public final class InMemoryRunRepository implements RunRepository {
    private final InMemoryStore store;

    InMemoryRunRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public Run insert(Run run) {
        synchronized (store) {
            store.insertRun(run);
            return store.runs.get(run.id()); // as stored: with its job's labels
        }
    }

    @Override
    public Optional<Run> find(String id) {
        synchronized (store) {
            return Optional.ofNullable(id == null ? null : store.asRead(store.runs.get(id)));
        }
    }

    @Override
    public List<Attempt> attempts(String runId) {
        synchronized (store) {
            return List.copyOf(store.attempts.getOrDefault(runId, List.of()));
        }
    }

    @Override
    public Page<Run> listMatching(io.forgeflow.domain.port.RunFilter f, int limit, String cursor) {
        synchronized (store) {
            Page<Run> page = store.page(store.runs.values().stream()
                            .filter(r -> f.jobId() == null || r.jobId().equals(f.jobId()))
                            .filter(r -> f.status() == null || r.status() == f.status())
                            .filter(r -> f.queue() == null || f.queue().equals(store.queueOf(r)))
                            .filter(r -> r.labels().entrySet().containsAll(f.labels().entrySet()))
                            .filter(r -> f.scheduledAfter() == null || r.scheduledFor().isAfter(f.scheduledAfter()))
                            .filter(r -> f.scheduledBefore() == null || r.scheduledFor().isBefore(f.scheduledBefore()))
                            .filter(r -> f.finishedAfter() == null
                                    || (r.finishedAt() != null && r.finishedAt().isAfter(f.finishedAfter())))
                            .filter(r -> f.tenant() == null || f.tenant().equals(r.tenant())),
                    Run::id, limit, cursor, "run");
            return new Page<>(page.items().stream().map(store::asRead).toList(), page.nextCursor());
        }
    }

    @Override
    public Map<RunStatus, Long> countByStatus(String tenant) {
        synchronized (store) {
            Map<RunStatus, Long> counts = new EnumMap<>(RunStatus.class);
            for (RunStatus s : RunStatus.values()) {
                counts.put(s, 0L);
            }
            store.runs.values().stream().filter(r -> tenant == null || tenant.equals(r.tenant()))
                    .forEach(r -> counts.merge(r.status(), 1L, Long::sum));
            return counts;
        }
    }

    @Override
    public Optional<Run> cancelPending(String id, String reason) {
        synchronized (store) {
            Run run = store.runs.get(id);
            if (run == null || run.status() != RunStatus.PENDING && run.status() != RunStatus.WAITING) {
                return Optional.empty();
            }
            Run cancelled = RunTransitions.cancel(run, store.now(), reason);
            store.runs.put(id, cancelled);
            store.afterRunEnded(cancelled, store.now());
            return Optional.of(store.asRead(cancelled));
        }
    }

    @Override
    public Optional<Run> requestCancel(String id) {
        synchronized (store) {
            Run run = store.runs.get(id);
            if (run == null || run.status() != RunStatus.RUNNING) {
                return Optional.empty();
            }
            Run asked = RunTransitions.requestCancel(run);
            store.runs.put(id, asked);
            return Optional.of(asked);
        }
    }

    @Override
    public Optional<Run> requeue(String id, int attemptBudget) {
        synchronized (store) {
            Run run = store.runs.get(id);
            if (run == null || (run.status() != RunStatus.DEAD && run.status() != RunStatus.CANCELLED)) {
                return Optional.empty();
            }
            Run requeued = RunTransitions.requeue(run, store.now(), attemptBudget);
            if (run.trace() != null && run.trace().context() != null) {
                // as in SQL: the next life is a new span, under the one that ended
                requeued = requeued.withTrace(new io.forgeflow.domain.trace.RunTrace(run.trace().context().child(),
                        run.trace().context(), run.trace().queue()));
            }
            store.runs.put(id, requeued);
            return Optional.of(store.asRead(requeued));
        }
    }
}
