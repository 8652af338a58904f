package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import io.forgeflow.domain.tenant.Tenants;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Job definitions and the scheduler's view of them ({@link JobRepository}).
 *
 * <ul>
 *   <li>{@link #create}: {@code INSERT ... ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING},
 *       then, when nothing was stored,
 *       a read of the job holding the key; the job and its first run commit together.</li>
 *   <li>{@link #list}: newest first, with an opaque keyset cursor; a malformed cursor throws
 *       {@link IllegalArgumentException} naming {@code cursor}. Ids that are not well-formed find nothing.</li>
 *   <li>{@link #changeStatus}: compare-and-set on the job's status, with the run effects in the same transaction
 *       (pending runs cancelled; running ones flagged for their workers).</li>
 *   <li>{@link #dueJobs} and {@link #fireTick}: the leader's read on the database clock, and the doubly guarded
 *       tick (compare-and-set on {@code next_run_at}, and a unique index on the tick a run was fired for).</li>
 * </ul>
 *
 * Runs created or cancelled here are returned to the caller (the application publishes them), never published here.
 */
public final class PostgresJobRepository implements JobRepository {
    private static final int CREATE_ATTEMPTS = 3;
    /** Submission batches written at once (a connection each) and submissions per batch (see {@link GroupCommit}). */
    static final int SUBMISSION_BATCHES = 2;
    static final int SUBMISSION_BATCH_SIZE = 64;
    private final Jdbi jdbi;
    private final JdbcStatements statements;
    private final DbClock clock;
    private final GroupCommit<JobSubmissionWriter.Submission, Optional<Job>> submissions;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresJobRepository(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.statements = JdbcStatements.of(jdbi);
        this.clock = new DbClock(testClock);
        this.submissions = new GroupCommit<>(SUBMISSION_BATCHES, SUBMISSION_BATCH_SIZE,
                new JobSubmissionWriter(statements));
    }

    @Override
    public JobCreation create(Job given, Run firstRun) {
        Objects.requireNonNull(given, "job");
        Job job = StoredKeys.stored(given);
        if (firstRun != null && !firstRun.jobId().equalsIgnoreCase(job.id())) {
            throw new IllegalArgumentException("the first run belongs to job " + firstRun.jobId() + ", not " + job.id());
        }
        if (job.spec().uniqueKey() != null) {
            return createUnique(job, firstRun);
        }
        // The holder of a taken key can vanish between the conflict and the read only if it is deleted; then the
        // key is free again and the next round stores this job.
        // a sequenced job takes its key's lock: in a transaction of its own, never inside a group commit's batch;
        // a job with notify (its column is not among the one statement's) is stored the same way
        // so is a debounced or throttled job (debounce decides in the transaction; throttle is among the run's columns
        // the one statement does not copy)
        if (firstRun != null && isPlainPendingRun(firstRun, job) && job.spec().sequenceKey() == null
                && job.spec().notices() == null && job.spec().debounce() == null && job.spec().throttle() == null) {
            return createInOneStatement(job, firstRun);
        }
        for (int round = 0; round < CREATE_ATTEMPTS; round++) {
            List<Run> inserted = new ArrayList<>(1);
            Optional<JobCreation> creation = jdbi.inTransaction(handle -> {
                inserted.clear();
                JobSql jobs = handle.attach(JobSql.class);
                Instant now = clock.now();
                boolean debounced = job.spec().debounce() != null && firstRun != null;
                if (debounced) {
                    Optional<JobCreation> absorbed = absorb(handle, job);
                    if (absorbed.isPresent()) {
                        return absorbed;
                    }
                }
                Optional<Job> stored = jobs.insert(job, now);
                if (stored.isPresent()) {
                    if (firstRun != null) {
                        Run run = handle.attach(RunSql.class).insert(firstRun, now);
                        if (debounced) {
                            handle.createQuery("SELECT forgeflow_debounce_start(CAST(:id AS uuid))::text")
                                    .bind("id", run.id()).mapTo(String.class).one();
                            run = handle.attach(RunSql.class).find(run.id()).orElse(run);
                            stored = jobs.find(job.id());
                        }
                        inserted.add(run);
                    }
                    return Optional.of(new JobCreation(stored.get(), true));
                }
                return jobs.findByIdempotencyKey(job.spec().idempotencyKey())
                        .map(holder -> new JobCreation(holder, false));
            });
            if (creation.isPresent()) {
                return withRun(creation.get(), inserted);
            }
        }
        throw new IllegalStateException("idempotency key " + Tenants.unscopedKey(job.spec().idempotencyKey())
                + " kept conflicting with a job that could not be read");
    }

    /**
     * A job with a unique key: job and run in one transaction, outside the group commit (a conflict fails the whole
     * statement, which must not take other submissions with it). The unique index runs_live_unique_key decides; on
     * its violation nothing is stored and the live holder is read. A holder whose run ended in between freed the key:
     * the next round stores this job.
     */
    private JobCreation createUnique(Job job, Run firstRun) {
        for (int round = 0; round < CREATE_ATTEMPTS; round++) {
            List<Run> inserted = new ArrayList<>(1);
            Optional<JobCreation> creation;
            try {
                creation = jdbi.inTransaction(handle -> {
                    inserted.clear();
                    JobSql jobs = handle.attach(JobSql.class);
                    Instant now = clock.now();
                    Optional<Job> stored = jobs.insert(job, now);
                    if (stored.isPresent()) {
                        if (firstRun != null) {
                            inserted.add(handle.attach(RunSql.class).insert(firstRun, now));
                        }
                        return Optional.of(new JobCreation(stored.get(), true));
                    }
                    return jobs.findByIdempotencyKey(job.spec().idempotencyKey())
                            .map(holder -> new JobCreation(holder, false));
                });
            } catch (RuntimeException e) {
                if (!UniqueKeys.isLiveKeyViolation(e)) {
                    throw e;
                }
                Optional<String> holder = jdbi.withExtension(JobSql.class,
                        sql -> sql.liveHolderOf(job.spec().queue(), job.spec().uniqueKey()));
                if (holder.isPresent()) {
                    throw ConflictException.uniqueKeyHeld(Tenants.unscopedKey(job.spec().uniqueKey()), job.spec().queue(),
                            holder.get());
                }
                continue;
            }
            if (creation.isPresent()) {
                return withRun(creation.get(), inserted);
            }
        }
        throw new IllegalStateException("unique key " + Tenants.unscopedKey(job.spec().uniqueKey())
                + " kept conflicting with a run that could not be read");
    }

    /**
     * The submission path of one-off jobs: job and run in one statement (one round trip, one commit). Only when the key
     * was taken does a second statement read the job that holds it.
     */
    private JobCreation createInOneStatement(Job job, Run firstRun) {
        for (int round = 0; round < CREATE_ATTEMPTS; round++) {
            Optional<Job> stored = insertWithRun(job, firstRun, clock.now());
            if (stored.isPresent()) {
                return new JobCreation(stored.get(), true, firstRun);
            }
            Optional<Job> holder = jdbi.withExtension(JobSql.class,
                    sql -> sql.findByIdempotencyKey(job.spec().idempotencyKey()));
            if (holder.isPresent()) {
                return new JobCreation(holder.get(), false);
            }
        }
        throw new IllegalStateException("idempotency key " + Tenants.unscopedKey(job.spec().idempotencyKey())
                + " kept conflicting with a job that could not be read");
    }

    /**
     * The run of the job's debounce key that absorbs this submission (forgeflow_debounce_absorb: takes the key's lock
     * until the transaction ends, so the insert that follows an empty answer is ordered with the key's other
     * submitters); empty when there is none.
     */
    private static Optional<JobCreation> absorb(org.jdbi.v3.core.Handle handle, Job job) {
        Optional<String[]> into = handle.createQuery("SELECT CAST(job_id AS text) AS job_id, CAST(run_id AS text) "
                        + "AS run_id FROM forgeflow_debounce_absorb(CAST(:debounce AS jsonb), :executor, "
                        + "CAST(:payload AS jsonb))")
                .bind("debounce", JobSql.debounceJson(job.spec())).bind("executor", job.spec().executor())
                .bind("payload", PayloadJson.write(job.spec().payload()))
                .map((rs, ctx) -> new String[] {rs.getString("job_id"), rs.getString("run_id")}).findOne();
        if (into.isEmpty()) {
            return Optional.empty();
        }
        Job holder = handle.attach(JobSql.class).find(into.get()[0]).orElseThrow(() -> new IllegalStateException(
                "debounce key " + job.spec().debounce().key() + " named job " + into.get()[0] + ", which is gone"));
        return Optional.of(JobCreation.debounced(holder, into.get()[1]));
    }

    /** The job and its first run in one statement; empty when the idempotency key is taken (nothing was stored). */
    private Optional<Job> insertWithRun(Job job, Run run, Instant now) {
        return submissions.write(new JobSubmissionWriter.Submission(job, run, now));
    }

    /** The group commit of one-statement submissions (tests read its counters). */
    GroupCommit<?, ?> submissionCommits() {
        return submissions;
    }

    /** A first run the one-statement insert can write: a fresh pending run carrying its job's definition. */
    private static boolean isPlainPendingRun(Run run, Job job) {
        return run.status() == io.forgeflow.domain.run.RunStatus.PENDING && run.attempt() == 0
                && run.executor().equals(job.spec().executor()) && run.payload().equals(job.spec().payload())
                && run.timeoutSeconds() == job.spec().timeoutSeconds();
    }

    @Override
    public Optional<Job> find(String id) {
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        return jdbi.withExtension(JobSql.class, sql -> sql.find(id));
    }

    /** {@inheritDoc} A malformed cursor throws {@link IllegalArgumentException} naming {@code cursor}. */
    @Override
    public Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor) {
        Cursors.checkLimit(limit);
        return FilteredLists.jobs(jdbi, filter, limit, cursor);
    }

    /**
     * {@inheritDoc} Payload sizes are measured, large payloads left out and the budget applied by the query itself, so
     * a large payload is never read out of the database for a list. A malformed cursor throws
     * {@link IllegalArgumentException} naming {@code cursor}.
     */
    @Override
    public Page<ListedJob> listForDisplayMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor,
                                                  ListBudget budget) {
        Cursors.checkLimit(limit);
        return FilteredLists.jobsForDisplay(jdbi, filter, limit, cursor, budget);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Locks the job's pending and running runs first (in id order), then the job: the same order as every other
     * writer, so a pause never deadlocks with an acknowledgement. Cancelled runs get an error saying why.
     */
    @Override
    public Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                            RunCancellation cancellation, Run insert) {
        return changeStatus(id, expected, next, nextRunAt, cancellation, insert, null, null);
    }

    /** {@inheritDoc} The note and its author are stored with the status, in the same statement. */
    @Override
    public Optional<JobChange> pause(String id, JobStatus expected, String note, String by) {
        return changeStatus(id, expected, JobStatus.PAUSED, null, RunCancellation.PENDING, null, note, by);
    }

    private Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                             RunCancellation cancellation, Run insert, String note, String by) {
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(next, "next");
        Objects.requireNonNull(cancellation, "cancellation");
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        List<Run> touched = new ArrayList<>();
        Optional<Job> result = jdbi.inTransaction(handle -> {
            touched.clear();
            JobSql sql = handle.attach(JobSql.class);
            Instant now = clock.now();
            if (cancellation != RunCancellation.NONE) {
                sql.lockLiveRuns(id);
            }
            Optional<Job> changed = sql.changeStatus(id, expected.wireName(), next.wireName(), nextRunAt, note, by, now);
            if (changed.isPresent() && cancellation != RunCancellation.NONE) {
                for (Run run : sql.cancelRuns(id, cancellation == RunCancellation.PENDING_AND_RUNNING,
                        "cancelled: its job was " + next.wireName(), now)) {
                    if (run.status() == RunStatus.CANCELLED) {
                        touched.add(run); // running runs were only asked to stop: their worker moves them
                    }
                }
            }
            if (changed.isPresent() && insert != null) {
                if (!insert.jobId().equalsIgnoreCase(id)) {
                    throw new IllegalArgumentException("the run belongs to job " + insert.jobId() + ", not " + id);
                }
                Run inserted = handle.attach(RunSql.class).insert(insert, now);
                if (inserted.status() == RunStatus.WAITING) {
                    // a job with parents waits for them again; they may have decided it already
                    handle.createQuery("SELECT forgeflow_resolve_child(CAST(:id AS uuid), true)").bind("id", id)
                            .mapTo(String.class).one();
                    inserted = handle.attach(RunSql.class).find(inserted.id()).orElse(inserted);
                }
                touched.add(inserted);
            }
            return changed;
        });
        return result.map(job -> new JobChange(job, touched));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Locks the job's live runs first (runs before jobs, as every writer), then compares and sets the job row.
     */
    @Override
    public Optional<Job> update(String id, Instant expectedUpdatedAt, JobSpec spec, Instant nextRunAt,
                                PendingRuns pendingRuns, Instant rescheduleTo) {
        Objects.requireNonNull(expectedUpdatedAt, "expectedUpdatedAt");
        Objects.requireNonNull(spec, "spec");
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        return jdbi.inTransaction(handle -> {
            JobSql sql = handle.attach(JobSql.class);
            sql.lockLiveRuns(id);
            Optional<Job> updated = sql.update(id, expectedUpdatedAt, spec, nextRunAt, clock.now());
            if (updated.isPresent() && (pendingRuns == PendingRuns.FOLLOW || rescheduleTo != null)) {
                sql.updatePendingRuns(id, pendingRuns == PendingRuns.FOLLOW, rescheduleTo);
            }
            return updated;
        });
    }

    /** {@inheritDoc} The running-run check reads under the lock of the job's live runs, so it cannot go stale. */
    @Override
    public Optional<JobChange> delete(String id, JobStatus expected, boolean cancelRunning) {
        Objects.requireNonNull(expected, "expected");
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        List<Run> cancelled = new ArrayList<>();
        Optional<Job> result = jdbi.inTransaction(handle -> {
            cancelled.clear();
            JobSql sql = handle.attach(JobSql.class);
            Instant now = clock.now();
            sql.lockLiveRuns(id);
            if (!cancelRunning && sql.hasRunningRun(id)) {
                throw ConflictException.jobRunning(id);
            }
            Optional<Job> deleted = sql.changeStatus(id, expected.wireName(), JobStatus.DELETED.wireName(), null, now);
            if (deleted.isPresent()) {
                for (Run run : sql.cancelRuns(id, cancelRunning, "cancelled: its job was deleted", now)) {
                    if (run.status() == RunStatus.CANCELLED) {
                        cancelled.add(run);
                    }
                }
            }
            return deleted;
        });
        return result.map(job -> new JobChange(job, cancelled));
    }

    @Override
    public boolean purge(String id) {
        if (!Ids.isWellFormed(id)) {
            return false;
        }
        return jdbi.inTransaction(handle -> {
            // the job's row first: a move of its runs to history (which key-shares it) ends before purge.sql's
            // snapshot, which then sees them in history
            handle.createQuery("SELECT 1 FROM jobs WHERE id = CAST(? AS uuid) FOR UPDATE").bind(0, id)
                    .mapTo(Integer.class).findOne();
            return handle.attach(JobSql.class).purge(id);
        }).isPresent();
    }

    @Override
    public DueJobs dueJobs(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return jdbi.withExtension(JobSql.class, sql -> {
            Instant asOf = sql.databaseNow(clock.now());
            return new DueJobs(asOf, sql.due(asOf, limit));
        });
    }

    /** {@inheritDoc} The first entry of the partial index of due recurring jobs. */
    @Override
    public Optional<java.time.Duration> nextTickIn() {
        Double millis = jdbi.withExtension(JobSql.class, sql -> sql.nextTickIn(clock.now()));
        return millis == null ? Optional.empty() : Optional.of(java.time.Duration.ofNanos((long) (millis * 1e6)));
    }

    /**
     * {@inheritDoc}
     *
     * <p>The overlap policy is the job's, read from the job row in the statement; jobs with a policy other than
     * {@code allow} lock their live runs first.
     */
    @Override
    public TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
        return fire(jobId, expectedNextRunAt, null, newNextRunAt, run);
    }

    /** {@inheritDoc} Guarded on the job's updated_at as read, too: a PATCH since then makes this tick a no-op. */
    @Override
    public TickOutcome fire(Job job, Instant newNextRunAt, Run run) {
        return fire(job.id(), job.nextRunAt(), job.updatedAt(), newNextRunAt, run);
    }

    private TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant expectedUpdatedAt, Instant newNextRunAt,
                             Run run) {
        Objects.requireNonNull(expectedNextRunAt, "expectedNextRunAt");
        if (!Ids.isWellFormed(jobId)) {
            return TickOutcome.NOT_ADVANCED;
        }
        if (run != null && !run.jobId().equalsIgnoreCase(jobId)) {
            throw new IllegalArgumentException("the run belongs to job " + run.jobId() + ", not " + jobId);
        }
        if (run != null && run.status() != RunStatus.PENDING) {
            throw new IllegalArgumentException("a tick fires a pending run, not a " + run.status().wireName() + " one");
        }
        Optional<String> action = jdbi.inTransaction(handle -> {
            JobSql sql = handle.attach(JobSql.class);
            String overlap = run == null ? "allow" : sql.overlapOf(jobId).orElse("allow");
            return sql.fireTick(jobId, expectedNextRunAt, newNextRunAt, run, overlap, expectedUpdatedAt, clock.now());
        });
        if (action.isEmpty()) {
            return TickOutcome.NOT_ADVANCED;
        }
        if (action.get().startsWith("skip")) {
            return TickOutcome.SKIPPED_OVERLAP;
        }
        return TickOutcome.FIRED;
    }

    /**
     * {@inheritDoc}
     *
     * <p>One statement (backfill.sql): the job row locked for share, the runs inserted with ON CONFLICT on (job_id,
     * fired_for), the backfill recorded; then the runs it created are read back for the caller to publish.
     */
    @Override
    public Optional<BackfillOutcome> backfill(String jobId, String backfillId, io.forgeflow.domain.job.Backfill request,
                                              List<Instant> ticks) {
        if (!Ids.isWellFormed(jobId)) {
            return Optional.empty();
        }
        Instant now = clock.now(); // null in production: the statement reads the database clock
        Instant idTime = now == null ? Instant.now() : now;
        String[] runIds = new String[ticks.size()];
        String[] at = new String[ticks.size()];
        for (int i = 0; i < ticks.size(); i++) {
            runIds[i] = Ids.newId(idTime);
            at[i] = ticks.get(i).toString();
        }
        return jdbi.inTransaction(handle -> {
            List<String> rows = handle.attach(JobSql.class).backfill(jobId, backfillId, runIds, at,
                    request.oneAtATime(), request.from(), request.to(), request.overlap(), now);
            if (rows.stream().noneMatch(r -> r.startsWith("backfill:"))) {
                return Optional.<BackfillOutcome>empty();
            }
            RunSql runs = handle.attach(RunSql.class);
            List<Run> created = new ArrayList<>();
            for (String id : rows) {
                if (!id.startsWith("backfill:")) {
                    runs.find(id).ifPresent(created::add);
                }
            }
            BackfillProgress progress = progress(handle.attach(JobSql.class).backfillProgress(jobId, backfillId))
                    .orElseThrow();
            return Optional.of(new BackfillOutcome(progress, created));
        });
    }

    @Override
    public Optional<BackfillProgress> backfillProgress(String jobId, String backfillId) {
        if (!Ids.isWellFormed(jobId) || !Ids.isWellFormed(backfillId)) {
            return Optional.empty();
        }
        return progress(jdbi.withExtension(JobSql.class, sql -> sql.backfillProgress(jobId, backfillId)));
    }

    private static Optional<BackfillProgress> progress(List<Rows.BackfillRow> rows) {
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Rows.BackfillRow first = rows.get(0);
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        for (Rows.BackfillRow row : rows) {
            if (row.status() != null) {
                counts.put(row.status(), row.count());
            }
        }
        return Optional.of(new BackfillProgress(first.id(), first.jobId(), first.from(), first.to(), first.overlap(),
                first.ticks(), first.created(), first.createdAt(), counts));
    }

    /** A creation with the first run this call stored, if it created the job. */
    private static JobCreation withRun(JobCreation creation, List<Run> inserted) {
        return creation.created() && !inserted.isEmpty()
                ? new JobCreation(creation.job(), true, inserted.get(0)) : creation;
    }
}
