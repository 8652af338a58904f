package io.forgeflow.domain.port;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.Run;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Where job definitions live, and the scheduler's view of them. */
public interface JobRepository {

    /**
     * Stores {@code job} and, when {@code firstRun} is not null, its first run, in one transaction. When the
     * job's idempotency key is already taken, stores nothing and returns the job holding the key with
     * {@code created = false}. Concurrent calls with one key create exactly one job (a unique constraint
     * decides, not a read-then-write).
     *
     * <p>When the job has a unique key and a pending or running run of another job in its queue carries that key, stores
     * nothing and throws {@link io.forgeflow.domain.error.ConflictException#uniqueKeyHeld}; concurrent calls with one
     * key store at most one such job while it is live (the database's unique index decides).
     *
     * <p>The returned creation carries the first run as stored when this call created it, so the caller can tell
     * others of it.
     */
    JobCreation create(Job job, Run firstRun);

    /** The job with this id, if any. Ids that are not well-formed simply find nothing. */
    Optional<Job> find(String id);

    /** Jobs newest first, optionally only those in {@code status}; {@code cursor} from a previous page or null. */
    default Page<Job> list(JobStatus status, int limit, String cursor) {
        return listMatching(JobFilter.status(status), limit, cursor);
    }

    /**
     * Jobs newest first that pass {@code filter}; {@code cursor} from a previous page of the same filter, or null.
     * A page reads a number of rows bounded by the page size and the filter's selectivity, never a scan of all jobs.
     */
    Page<Job> listMatching(JobFilter filter, int limit, String cursor);

    /**
     * As {@link #list}, for a response: payloads over {@link ListedJob#PAYLOAD_LIMIT_BYTES} left out and marked
     * ({@link ListedJob}), and the page held to {@code budget} (it may end before {@code limit}; its cursor continues
     * after its last item), read that way from the store rather than loaded whole. By default, the whole jobs of
     * {@link #list}, none marked, with no budget (fakes that hold little).
     */
    default Page<ListedJob> listForDisplay(JobStatus status, int limit, String cursor, ListBudget budget) {
        return listForDisplayMatching(JobFilter.status(status), limit, cursor, budget);
    }

    /** As {@link #listForDisplay(JobStatus, int, String, ListBudget)}, of the jobs that pass {@code filter}. */
    default Page<ListedJob> listForDisplayMatching(JobFilter filter, int limit, String cursor, ListBudget budget) {
        Page<Job> page = listMatching(filter, limit, cursor);
        return new Page<>(page.items().stream().map(job -> new ListedJob(job, false)).toList(), page.nextCursor());
    }

    /**
     * Compare-and-set on the job's status: when the job is in {@code expected}, moves it to {@code next}, sets
     * {@code nextRunAt} (null clears it), applies {@code cancellation} to its runs and, when {@code insert} is not
     * null, stores that new run, all in one transaction. Returns the updated job with the runs this call cancelled or
     * stored, or empty (and nothing changed) when the job is missing or no longer in {@code expected}.
     */
    Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                               RunCancellation cancellation, Run insert);

    /**
     * Pauses the job (from {@code expected}, which may be {@link JobStatus#PAUSED} to replace the note): as
     * {@link #changeStatus} to paused with its pending runs cancelled, storing {@code note} and {@code by}
     * ({@code paused_note}, {@code paused_by}; any other status change clears them). By default the note is not kept
     * (stores that cannot hold it).
     */
    default Optional<JobChange> pause(String id, JobStatus expected, String note, String by) {
        return changeStatus(id, expected, JobStatus.PAUSED, null, RunCancellation.PENDING, null);
    }

    /**
     * Compare-and-set on the job's definition ({@code PATCH}): while the job's {@code updatedAt} still equals
     * {@code expectedUpdatedAt} and it is not cancelled or deleted, stores {@code spec} and {@code nextRunAt} and moves
     * {@code updatedAt} on (strictly later, so a reader of the old definition can tell); when {@code pendingRuns} is
     * {@link PendingRuns#FOLLOW}, the job's pending runs take the new priority, queue, payload, timeout and concurrency
     * limit; when {@code rescheduleTo} is not null, its pending runs not attempted yet become due then. One transaction.
     * Empty (and nothing changed) when the job is missing or was changed since it was read. Running runs are never
     * touched.
     */
    Optional<Job> update(String id, Instant expectedUpdatedAt, JobSpec spec, Instant nextRunAt, PendingRuns pendingRuns,
                         Instant rescheduleTo);

    /**
     * Moves the job from {@code expected} to {@link JobStatus#DELETED} (a tombstone: out of the lists, no next run) and
     * cancels its pending runs, in one transaction that locks its live runs first. A running run stops the deletion
     * with {@link io.forgeflow.domain.error.ConflictException} code {@code job_running}, unless
     * {@code cancelRunning}: then its worker is asked to stop it. Empty when the job is missing or no longer in
     * {@code expected}. The change carries the runs this call cancelled (and those asked to stop).
     */
    Optional<JobChange> delete(String id, JobStatus expected, boolean cancelRunning);

    /**
     * Removes a deleted job with its runs and their attempts for good ({@code ?purge=true}). Returns whether a job was
     * removed; a job that is not {@link JobStatus#DELETED} is left alone.
     */
    boolean purge(String id);

    /**
     * The scheduler's read: active recurring jobs whose {@code next_run_at} has passed on the database clock
     * (at most {@code limit}, earliest first), with that clock's reading. Only the leader calls this.
     */
    DueJobs dueJobs(int limit);

    /**
     * How long, on the database clock, until the earliest {@code next_run_at} of an active recurring job (zero or
     * negative when one is due already); empty when there is none. The scheduler sleeps no longer than this, so a
     * tick fires on time rather than at the scheduler's next pass. Implementations that cannot tell return empty.
     */
    default Optional<Duration> nextTickIn() {
        return Optional.empty();
    }

    /**
     * Fires one tick in one transaction: advances the job's {@code next_run_at} from {@code expectedNextRunAt}
     * to {@code newNextRunAt} and, when {@code run} is not null, inserts it, as the job's overlap policy allows
     * ({@code skip}: not while a run of the job is pending or running; {@code queue_one}: not while one is pending;
     * {@code cancel_running}: pending runs of the job are cancelled and running ones asked to stop, then the run is
     * inserted). Guarded twice: the update only applies while {@code next_run_at} still equals
     * {@code expectedNextRunAt} and the job is active, and the insert is guarded by a unique index on (job_id,
     * fired_for), fired_for being the tick the run stands for ({@code ON CONFLICT DO NOTHING}), so a tick can never
     * fire twice even if two nodes both believe they lead. The tick is consumed (the job advances) also when the
     * overlap policy drops its run. A fired run counts against the job's {@code max_runs}; the job completes (status
     * {@link JobStatus#COMPLETED}, no next run) when {@code newNextRunAt} is null or the run fired was its last.
     */
    TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run);

    /**
     * {@link #fire(String, Instant, Instant, Run)} of a tick computed from {@code job} as read: implementations that
     * can also guard on the definition (it has not been changed by a PATCH since the read) do, so a tick computed from
     * an old schedule or payload is never stored. By default, the guard on {@code next_run_at} alone.
     */
    default TickOutcome fire(Job job, Instant newNextRunAt, Run run) {
        return fire(job.id(), job.nextRunAt(), newNextRunAt, run);
    }

    /**
     * Stores a backfill of a recurring job ({@code backfillId}) and one pending run per tick of {@code ticks}
     * ({@code fired_for} and {@code scheduled_for} the tick; the job's definition, queue and limits; one at a time
     * when the request says so), in one transaction. A tick that already has a run of the job gets none. Empty (and
     * nothing stored) when the job is missing or not an active or paused recurring job.
     */
    default Optional<BackfillOutcome> backfill(String jobId, String backfillId, io.forgeflow.domain.job.Backfill request,
                                               List<Instant> ticks) {
        throw new UnsupportedOperationException("this store keeps no backfills");
    }

    /** A backfill of the job with its runs counted by status; empty when there is none with this id. */
    default Optional<BackfillProgress> backfillProgress(String jobId, String backfillId) {
        return Optional.empty();
    }

    /** What {@link #backfill} stored: the backfill's progress just after, and the runs it created. */
    record BackfillOutcome(BackfillProgress progress, List<Run> runs) {
        public BackfillOutcome {
            runs = List.copyOf(runs);
        }
    }

    /**
     * A backfill: its range and overlap as asked, how many ticks the range held and how many runs it created (the
     * others had one), and its runs counted by status ({@code pending}, {@code running}, {@code succeeded},
     * {@code dead}, {@code cancelled}; retention may have removed finished ones).
     */
    record BackfillProgress(String id, String jobId, Instant from, Instant to, String overlap, int ticks, int created,
                            Instant createdAt, java.util.Map<String, Long> runs) {
        public BackfillProgress {
            runs = java.util.Map.copyOf(runs);
        }

        /** Whether no run of the backfill is pending or running any more. */
        public boolean done() {
            return runs.getOrDefault("pending", 0L) + runs.getOrDefault("running", 0L)
                    + runs.getOrDefault("waiting", 0L) == 0;
        }
    }

    /** What a definition change does to the job's pending runs. */
    enum PendingRuns {
        /** They take the new priority, queue, payload, timeout, concurrency limit and retry policy. */
        FOLLOW,
        /** They keep what they were created with ({@code ?pending=keep}). */
        KEEP
    }

    /** {@link #fire}, reduced to whether this call advanced the job. */
    default boolean fireTick(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
        return fire(jobId, expectedNextRunAt, newNextRunAt, run) != TickOutcome.NOT_ADVANCED;
    }

    /** What {@link #fire} did. */
    enum TickOutcome {
        /** Nothing changed: the job was not active or another firer advanced it first. */
        NOT_ADVANCED,
        /** The job advanced and the run was inserted (or no run was given). */
        FIRED,
        /** The job advanced; the overlap policy dropped the run (a missed tick). */
        SKIPPED_OVERLAP
    }

    /** What a status change does to the job's runs. */
    enum RunCancellation {
        /** Leave runs alone. */
        NONE,
        /** Pending runs become cancelled. */
        PENDING,
        /** Pending runs become cancelled, and workers are asked to stop running ones. */
        PENDING_AND_RUNNING
    }

    /**
     * The outcome of {@link #create}: the stored job, whether this call created it, and the first run it stored (null
     * when it stored none); {@code debouncedInto}: the id of the run a debounce joined the submission to (then {@code
     * job} is that run's job and nothing was stored), else null.
     */
    record JobCreation(Job job, boolean created, Run run, String debouncedInto) {
        public JobCreation(Job job, boolean created) {
            this(job, created, null, null);
        }

        public JobCreation(Job job, boolean created, Run run) {
            this(job, created, run, null);
        }

        /** A submission a debounce joined to run {@code runId} of {@code job}. */
        public static JobCreation debounced(Job job, String runId) {
            return new JobCreation(job, false, null, runId);
        }
    }

    /** A job as a status change or deletion left it, and the runs that change touched (committed). */
    record JobChange(Job job, List<Run> runs) {
        public JobChange {
            runs = List.copyOf(runs);
        }

        public JobChange(Job job) {
            this(job, List.of());
        }
    }

    /** Due jobs and the database clock's reading when they were selected. */
    record DueJobs(Instant now, List<Job> jobs) {
        public DueJobs {
            jobs = List.copyOf(jobs);
        }
    }
}
