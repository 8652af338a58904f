package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs as operators and the API see them ({@link RunRepository}). Listings are newest first with opaque keyset
 * cursors; ids that are not well-formed find nothing. Each control is a single compare-and-set statement on the run's
 * status, so it races safely with claimers and workers. Cancelling the pending run of a one-off job completes the job,
 * as the end of its run would. The changed run is returned; the application publishes it.
 */
public final class PostgresRunRepository implements RunRepository {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresRunRepository(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public Run insert(Run run) {
        Objects.requireNonNull(run, "run");
        try {
            return jdbi.withExtension(RunSql.class, sql -> sql.insert(run, clock.now()));
        } catch (RuntimeException e) {
            throw uniqueConflictOr(e, sql -> sql.liveHolderForJob(run.jobId()));
        }
    }

    /** A violation of runs_live_unique_key as the conflict with the job holding the key; any other failure as is. */
    private RuntimeException uniqueConflictOr(RuntimeException e,
                                              Function<JobSql, Optional<String>> holderQuery) {
        if (!UniqueKeys.isLiveKeyViolation(e)) {
            return e;
        }
        Optional<Job> holder = jdbi.withExtension(JobSql.class,
                sql -> holderQuery.apply(sql).flatMap(sql::find));
        if (holder.isEmpty()) { // its run ended meanwhile: the key is free, the caller may try again
            return new ConflictException("unique_key", "the job's unique_key was held by "
                    + "a live run a moment ago and is free now: try again", ConflictException.UNIQUE_CONFLICT, null);
        }
        return ConflictException.uniqueKeyHeld(holder.get().spec().uniqueKey(),
                holder.get().spec().queue(), holder.get().id());
    }

    @Override
    public Optional<Run> find(String id) {
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        // runs first: only a run that is not there pays for a look through every day of history
        // (and runs again: a requeue may have brought it back between the two)
        return jdbi.withExtension(RunSql.class, sql -> sql.find(id).or(() -> sql.findInHistory(id))
                .or(() -> sql.find(id)));
    }

    @Override
    public List<Attempt> attempts(String runId) {
        if (!Ids.isWellFormed(runId)) {
            return List.of();
        }
        return jdbi.withExtension(RunSql.class, sql -> {
            List<Attempt> attempts = sql.attempts(runId);
            return attempts.isEmpty() && !sql.isLive(runId) ? sql.attemptsInHistory(runId) : attempts;
        });
    }

    /** {@inheritDoc} A malformed cursor throws {@link IllegalArgumentException} naming {@code cursor}. */
    @Override
    public Page<Run> listMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor) {
        Cursors.checkLimit(limit);
        return FilteredLists.runs(jdbi, filter, limit, cursor);
    }

    /** {@inheritDoc} The tail is cut, the payload left out and the budget applied by the query itself. */
    @Override
    public Page<ListedRun> listForDisplayMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor,
                                                  ListBudget budget) {
        Cursors.checkLimit(limit);
        return FilteredLists.runsForDisplay(jdbi, filter, limit, cursor, budget);
    }

    @Override
    public Map<RunStatus, Long> countByStatus(String tenant) {
        Map<String, Long> counts = jdbi.withExtension(RunSql.class, sql -> sql.countByStatus(tenant));
        Map<RunStatus, Long> all = new EnumMap<>(RunStatus.class);
        for (RunStatus status : RunStatus.values()) {
            all.put(status, counts.getOrDefault(status.wireName(), 0L));
        }
        return all;
    }

    @Override
    public Optional<Run> cancelPending(String id, String reason) {
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        return jdbi.withExtension(RunSql.class, sql -> sql.cancelPending(id, reason, clock.now()));
    }

    @Override
    public Optional<Run> requestCancel(String id) {
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        return jdbi.withExtension(RunSql.class, sql -> sql.requestCancel(id));
    }

    @Override
    public Optional<Run> requeue(String id, int attemptBudget) {
        if (attemptBudget < 1) {
            throw new IllegalArgumentException("attemptBudget must be >= 1, was " + attemptBudget);
        }
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        try {
            // a run that moved to history comes back first, in the same transaction (forgeflow_restore_run)
            return jdbi.inTransaction(handle -> {
                handle.createQuery("SELECT forgeflow_restore_run(CAST(? AS uuid))").bind(0, id)
                        .mapTo(Boolean.class).one();
                return handle.attach(RunSql.class).requeue(id, attemptBudget, clock.now());
            });
        } catch (RuntimeException e) {
            throw uniqueConflictOr(e, sql -> sql.liveHolderForRun(id));
        }
    }
}
