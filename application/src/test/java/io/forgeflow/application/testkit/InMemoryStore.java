package io.forgeflow.application.testkit;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Notice;
import io.forgeflow.domain.job.Notify;
import io.forgeflow.domain.job.ScheduleState;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One in-memory database for the fakes: jobs, runs, attempt rows and nodes, shared by the
 * {@link InMemoryJobRepository}, {@link InMemoryRunRepository}, {@link InMemoryRunQueue} and
 * {@link InMemoryNodeRegistry} it hands out, so that (as in Postgres) a pause seen through the job repository
 * cancels runs the queue can no longer claim.
 *
 * <p>Every operation holds the store's monitor for its whole duration, which makes each one a transaction: a
 * claim returns each run to at most one caller, compare-and-set updates cannot interleave. "Now" is always the
 * store's clock (normally a {@link MutableClock}), standing in for the database clock.
 *
 * <p>Listings are newest first by insertion order; cursors are opaque strings that only this store decodes
 * (anything else is an {@link IllegalArgumentException}, as the ports expect).
 */
public final class InMemoryStore {
    private final Clock clock;
    final Map<String, Job> jobs = new HashMap<>();
    final Map<String, Run> runs = new HashMap<>();
    final Map<String, List<Attempt>> attempts = new HashMap<>();
    /** Runs inserted by a schedule tick: UNIQUE (job_id, scheduled_for) applies to these. */
    final Set<String> tickRuns = new HashSet<>();
    final Map<String, NodeRow> nodes = new TreeMap<>();
    /** Queue settings by {@link #slot} (a queue without an entry is open and unlimited). */
    final Map<String, QueueRow> queues = new TreeMap<>();
    /** Start times of runs of rate-limited queues, per {@link #slot}. */
    final Map<String, List<Instant>> queueStarts = new HashMap<>();
    private final Map<String, Long> insertionOrder = new HashMap<>();
    private long sequence;
    private RandomGenerator random = new SplittableRandom(20_250_101L);

    private final InMemoryJobRepository jobRepository;
    private final InMemoryRunRepository runRepository;
    private final InMemoryRunQueue runQueue;
    private final InMemoryNodeRegistry nodeRegistry;
    private final InMemoryQueueRepository queueRepository;
    private final InMemoryTenantRepository tenantRepository;

    public InMemoryStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.jobRepository = new InMemoryJobRepository(this);
        this.runRepository = new InMemoryRunRepository(this);
        this.runQueue = new InMemoryRunQueue(this);
        this.nodeRegistry = new InMemoryNodeRegistry(this);
        this.queueRepository = new InMemoryQueueRepository(this);
        this.tenantRepository = new InMemoryTenantRepository(this);
    }

    public InMemoryQueueRepository queues() {
        return queueRepository;
    }

    /** Tenants' weights and limits (README "Tenants"); the in-memory claim does not apply them. */
    public InMemoryTenantRepository tenants() {
        return tenantRepository;
    }

    /** A queue's settings row. */
    record QueueRow(boolean paused, io.forgeflow.domain.queue.QueueLimits limits) {
    }

    /** The queue a run belongs to (its job's). */
    String queueOf(Run run) {
        Job job = jobs.get(run.jobId());
        return job == null ? io.forgeflow.domain.job.QueueNames.DEFAULT : job.spec().queue();
    }

    /** A tenant's queue, as the key of {@link #queues} and {@link #queueStarts}. */
    static String slot(String tenant, String queue) {
        return tenant + io.forgeflow.domain.tenant.Tenants.SEPARATOR + queue;
    }

    /** The tenant's queue a run counts against. */
    String slotOf(Run run) {
        return slot(run.tenant(), queueOf(run));
    }

    /** The concurrency key a run counts against, or null. */
    String keyOf(Run run) {
        Job job = jobs.get(run.jobId());
        return job == null ? null : job.spec().effectiveConcurrencyKey(job.id());
    }

    /** The max_concurrent a run carries, or null. */
    Integer maxConcurrentOf(Run run) {
        Job job = jobs.get(run.jobId());
        return job == null ? null : job.spec().maxConcurrent();
    }

    public InMemoryJobRepository jobs() {
        return jobRepository;
    }

    public InMemoryRunRepository runs() {
        return runRepository;
    }

    public InMemoryRunQueue queue() {
        return runQueue;
    }

    public InMemoryNodeRegistry nodes() {
        return nodeRegistry;
    }

    public Clock clock() {
        return clock;
    }

    /** The random source of lease recovery's backoff; seeded, so runs are repeatable. */
    public synchronized void setRandom(RandomGenerator random) {
        this.random = Objects.requireNonNull(random, "random");
    }

    /** Every job, newest first. */
    public synchronized List<Job> allJobs() {
        return newestFirst(jobs.values().stream(), Job::id);
    }

    /** Every run, newest first. */
    public synchronized List<Run> allRuns() {
        return newestFirst(runs.values().stream(), Run::id);
    }

    /** Every attempt row of every run. */
    public synchronized List<Attempt> allAttempts() {
        return attempts.values().stream().flatMap(List::stream).collect(Collectors.toList());
    }

    /** Drops everything (between tests). */
    public synchronized void clear() {
        jobs.clear();
        runs.clear();
        attempts.clear();
        tickRuns.clear();
        nodes.clear();
        queues.clear();
        queueStarts.clear();
        tenantRepository.clear();
        insertionOrder.clear();
        notices.clear();
        awaitingRecovery.clear();
        deadStreaks.clear();
    }

    // ---- shared by the fakes; callers hold the monitor ----

    Instant now() {
        return clock.instant();
    }

    RandomGenerator random() {
        return random;
    }

    void insertJob(Job job) {
        jobs.put(job.id(), job);
        insertionOrder.put(job.id(), ++sequence);
    }

    void insertRun(Run run) {
        if (runs.containsKey(run.id())) {
            throw new IllegalStateException("duplicate key: a run with id " + run.id() + " exists");
        }
        Job job = jobs.get(run.jobId());
        // as in Postgres, where every insert copies the job's retry policy and labels onto the run
        runs.put(run.id(), job == null ? run : run.withRetry(job.spec().retry()).withLabels(job.spec().labels()));
        insertionOrder.put(run.id(), ++sequence);
    }

    void startAttempt(Run claimed, Instant now) {
        attempts.computeIfAbsent(claimed.id(), k -> new ArrayList<>())
                .add(new Attempt(claimed.id(), claimed.attempt(), claimed.workerId(), now, null, null, null));
    }

    void finishAttempt(String runId, int attempt, Instant now, AttemptOutcome outcome, String error) {
        finishAttempt(runId, attempt, now, outcome, error, null);
    }

    void finishAttempt(String runId, int attempt, Instant now, AttemptOutcome outcome, String error,
                       Integer retryAfterSeconds) {
        List<Attempt> rows = attempts.getOrDefault(runId, List.of());
        for (int i = 0; i < rows.size(); i++) {
            Attempt a = rows.get(i);
            if (a.attempt() == attempt && a.finishedAt() == null) {
                rows.set(i, new Attempt(runId, attempt, a.workerId(), a.startedAt(), now, outcome, error,
                        retryAfterSeconds));
            }
        }
    }

    /**
     * The run as reads show it: one that is not running keeps the worker of its last attempt (as the Postgres reads
     * derive it from run_attempts).
     */
    Run asRead(Run run) {
        if (run == null || run.workerId() != null) {
            return run;
        }
        return attempts.getOrDefault(run.id(), List.of()).stream().filter(a -> a.attempt() == run.attempt())
                .findFirst().map(a -> new Run(run.id(), run.jobId(), run.status(), run.attempt(), run.maxAttempts(),
                        run.priority(), run.scheduledFor(), run.startedAt(), run.finishedAt(), a.workerId(),
                        run.leaseExpiresAt(), run.output(), run.error(), run.executor(), run.payload(),
                        run.timeoutSeconds(), run.cancelRequested(), run.createdAt(), run.trace(), run.retry(),
                        run.labels(), run.snoozes()))
                .orElse(run);
    }

    /**
     * A one-off job whose run became terminal becomes completed; a recurring job with {@code pause_after_failures}
     * counts its dead runs in a row (a success ends the streak) and is paused by the scheduler, with
     * {@link ScheduleState#failurePauseNote}, when the streak reaches the control; a job with notify writes the
     * notices it asks for: dead, paused (by the control), recovered (a success while awaiting recovery), in that
     * order (as forgeflow_end_attempts does).
     */
    void afterRunEnded(Run run, Instant now) {
        if (!run.status().isTerminal()) {
            return;
        }
        Job job = jobs.get(run.jobId());
        if (job == null) {
            return;
        }
        boolean dead = run.status() == io.forgeflow.domain.run.RunStatus.DEAD;
        boolean succeeded = run.status() == io.forgeflow.domain.run.RunStatus.SUCCEEDED;
        Notify notify = job.spec().notices();
        boolean wasAwaiting = awaitingRecovery.contains(job.id());
        if (notify != null && notify.sends(Notify.RECOVERED)) {
            if (dead) {
                awaitingRecovery.add(job.id());
            } else if (succeeded) {
                awaitingRecovery.remove(job.id());
            }
        }
        boolean paused = false;
        if (!job.spec().isRecurring()) {
            if (job.status() == JobStatus.ACTIVE || job.status() == JobStatus.PAUSED) {
                jobs.put(job.id(), job.withStatus(JobStatus.COMPLETED, null, now));
            }
        } else if (job.spec().schedule().pauseAfterFailures() != null) {
            ScheduleState state = job.schedule();
            if (succeeded) {
                deadStreaks.remove(job.id());
                jobs.put(job.id(), job.withSchedule(new ScheduleState(state.firedRuns(), state.pausedNote(),
                        state.pausedBy(), 0)));
            } else if (dead) {
                int streak = deadStreaks.merge(job.id(), 1, Integer::sum);
                if (job.status() == JobStatus.ACTIVE && job.spec().schedule().pausesAfter(streak)) {
                    jobs.put(job.id(), job.withStatus(JobStatus.PAUSED, null, now).withSchedule(new ScheduleState(
                            state.firedRuns(), ScheduleState.failurePauseNote(
                                    job.spec().schedule().pauseAfterFailures()), ScheduleState.SCHEDULER, streak)));
                    paused = true;
                } else {
                    jobs.put(job.id(), job.withSchedule(new ScheduleState(state.firedRuns(), state.pausedNote(),
                            state.pausedBy(), streak)));
                }
            }
        }
        if (notify == null) {
            return;
        }
        Job after = jobs.get(job.id());
        if (dead) {
            notice(after, Notify.DEAD, run, now);
        }
        if (paused) {
            notice(after, Notify.PAUSED, run, now);
        }
        if (succeeded && wasAwaiting) {
            notice(after, Notify.RECOVERED, run, now);
        }
    }

    /** Writes a notice of {@code job} (as it is after the event) when its notify asks for {@code event}. */
    void notice(Job job, String event, Run run, Instant at) {
        Notify notify = job.spec().notices();
        if (notify == null || !notify.sends(event)) {
            return;
        }
        boolean dead = run != null && run.status() == io.forgeflow.domain.run.RunStatus.DEAD;
        String error = dead && run.error() != null && run.error().length() > Notice.MAX_ERROR_LENGTH
                ? run.error().substring(0, Notice.MAX_ERROR_LENGTH) : dead ? run.error() : null;
        notices.add(new Notice(++noticeSequence, event, job.id(), job.spec().name(), notify.url(),
                run == null ? null : run.id(), run == null ? null : run.attempt(), error,
                Notify.PAUSED.equals(event) ? job.schedule().pausedNote() : null, at));
    }

    /** Dead runs in a row per recurring job with pause_after_failures (jobs.dead_streak); a resume clears it. */
    final Map<String, Integer> deadStreaks = new HashMap<>();
    /** Jobs whose notify has "recovered" and whose last ended run died (jobs.awaiting_recovery). */
    final Set<String> awaitingRecovery = new HashSet<>();
    /** The notices outbox, oldest first. */
    final List<Notice> notices = new ArrayList<>();
    private long noticeSequence;
    private final InMemoryNoticeOutbox noticeOutbox = new InMemoryNoticeOutbox(this);

    public InMemoryNoticeOutbox notices() {
        return noticeOutbox;
    }

    <T> List<T> newestFirst(Stream<T> rows, Function<T, String> id) {
        return rows.sorted(Comparator.comparingLong((T t) -> insertionOrder.get(id.apply(t))).reversed())
                .collect(Collectors.toList());
    }

    /** A newest-first page of {@code rows} after {@code cursor}; cursors are tagged with {@code kind}. */
    <T> Page<T> page(Stream<T> rows, Function<T, String> id, int limit, String cursor, String kind) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        long before = cursor == null ? Long.MAX_VALUE : decodeCursor(cursor, kind);
        List<T> sorted = newestFirst(rows.filter(t -> insertionOrder.get(id.apply(t)) < before), id);
        List<T> items = sorted.subList(0, Math.min(limit, sorted.size()));
        String next = sorted.size() > limit
                ? encodeCursor(kind, insertionOrder.get(id.apply(items.get(items.size() - 1)))) : null;
        return new Page<>(items, next);
    }

    private static String encodeCursor(String kind, long position) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((kind + ":" + position).getBytes(StandardCharsets.UTF_8));
    }

    /** Throws IllegalArgumentException for anything {@link #encodeCursor} did not produce. */
    private static long decodeCursor(String cursor, String kind) {
        String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        if (!text.startsWith(kind + ":")) {
            throw new IllegalArgumentException("not a " + kind + " cursor");
        }
        long position = Long.parseLong(text.substring(kind.length() + 1));
        if (position < 1) {
            throw new IllegalArgumentException("not a " + kind + " cursor");
        }
        return position;
    }

    /** A node's row: what it said of itself, and when it last said it. */
    record NodeRow(io.forgeflow.domain.port.NodeRegistry.NodeInfo info, Instant lastSeenAt) {
    }
}
