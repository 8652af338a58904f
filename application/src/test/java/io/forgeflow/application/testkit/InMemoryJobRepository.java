package io.forgeflow.application.testkit;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/** {@link JobRepository} over an {@link InMemoryStore}; see the store for the transaction and clock rules. */
public final class InMemoryJobRepository implements JobRepository {
    private final InMemoryStore store;

    InMemoryJobRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public JobCreation create(Job job, Run firstRun) {
        synchronized (store) {
            String key = job.spec().idempotencyKey();
            if (key != null) {
                Optional<Job> holder = store.jobs.values().stream()
                        .filter(j -> key.equals(j.spec().idempotencyKey())).findFirst();
                if (holder.isPresent()) {
                    return new JobCreation(holder.get(), false);
                }
            }
            String unique = job.spec().uniqueKey();
            if (unique != null && firstRun != null) {
                Optional<String> live = store.runs.values().stream()
                        .filter(r -> r.status() == io.forgeflow.domain.run.RunStatus.PENDING
                                || r.status() == io.forgeflow.domain.run.RunStatus.RUNNING)
                        .map(r -> store.jobs.get(r.jobId()))
                        .filter(j -> j != null && unique.equals(j.spec().uniqueKey())
                                && j.spec().queue().equals(job.spec().queue()))
                        .map(Job::id).findFirst();
                if (live.isPresent()) {
                    throw io.forgeflow.domain.error.ConflictException.uniqueKeyHeld(unique, job.spec().queue(),
                            live.get());
                }
            }
            if (store.jobs.containsKey(job.id())) {
                throw new IllegalStateException("duplicate key: a job with id " + job.id() + " exists");
            }
            store.insertJob(job);
            if (firstRun != null) {
                store.insertRun(firstRun);
            }
            return new JobCreation(job, true, firstRun);
        }
    }

    @Override
    public Optional<Job> find(String id) {
        synchronized (store) {
            return Optional.ofNullable(id == null ? null : store.jobs.get(id));
        }
    }

    @Override
    public Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor) {
        synchronized (store) {
            return store.page(store.jobs.values().stream().filter(filter::matches), Job::id, limit, cursor, "job");
        }
    }

    @Override
    public Optional<Job> update(String id, Instant expectedUpdatedAt, io.forgeflow.domain.job.JobSpec spec,
                                Instant nextRunAt, PendingRuns pendingRuns, Instant rescheduleTo) {
        synchronized (store) {
            Job job = store.jobs.get(id);
            if (job == null || !Objects.equals(job.updatedAt(), expectedUpdatedAt)
                    || job.status() == JobStatus.CANCELLED || job.status() == JobStatus.DELETED) {
                return Optional.empty();
            }
            Instant now = store.now();
            Instant updated = job.updatedAt() != null && !now.isAfter(job.updatedAt())
                    ? job.updatedAt().plusNanos(1_000) : now;
            Job changed = new Job(id, spec, job.status(), nextRunAt, job.createdAt(), updated, job.submittedVia(),
                    job.trace(), job.schedule());
            store.jobs.put(id, changed);
            if (!Objects.equals(job.spec().notices(), spec.notices())) {
                store.awaitingRecovery.remove(id); // as update.sql: a new notify owes no recovery
            }
            for (Run run : List.copyOf(store.runs.values())) {
                if (!run.jobId().equals(id) || run.status() != RunStatus.PENDING && run.status() != RunStatus.WAITING) {
                    continue;
                }
                boolean follow = pendingRuns == PendingRuns.FOLLOW;
                Instant due = rescheduleTo != null && run.attempt() == 0 ? rescheduleTo : run.scheduledFor();
                store.runs.put(run.id(), new Run(run.id(), run.jobId(), run.status(), run.attempt(), run.maxAttempts(),
                        follow ? spec.priority() : run.priority(), due, run.startedAt(), run.finishedAt(),
                        run.workerId(), run.leaseExpiresAt(), run.output(), run.error(), run.executor(),
                        follow ? spec.payload() : run.payload(), follow ? spec.timeoutSeconds() : run.timeoutSeconds(),
                        run.cancelRequested(), run.createdAt(), run.trace(), follow ? spec.retry() : run.retry(),
                        follow ? spec.labels() : run.labels(), run.snoozes()));
            }
            return Optional.of(changed);
        }
    }

    @Override
    public Optional<JobChange> delete(String id, JobStatus expected, boolean cancelRunning) {
        synchronized (store) {
            Job job = store.jobs.get(id);
            if (job == null || job.status() != expected) {
                return Optional.empty();
            }
            boolean running = store.runs.values().stream()
                    .anyMatch(r -> r.jobId().equals(id) && r.status() == RunStatus.RUNNING);
            if (running && !cancelRunning) {
                throw io.forgeflow.domain.error.ConflictException.jobRunning(id);
            }
            return changeStatus(id, expected, JobStatus.DELETED, null,
                    cancelRunning ? RunCancellation.PENDING_AND_RUNNING : RunCancellation.PENDING, null);
        }
    }

    @Override
    public boolean purge(String id) {
        synchronized (store) {
            Job job = store.jobs.get(id);
            if (job == null || job.status() != JobStatus.DELETED) {
                return false;
            }
            store.jobs.remove(id);
            for (Run run : List.copyOf(store.runs.values())) {
                if (run.jobId().equals(id)) {
                    store.runs.remove(run.id());
                    store.attempts.remove(run.id());
                    store.tickRuns.remove(run.id());
                }
            }
            return true;
        }
    }

    /** {@inheritDoc} Also guarded on the definition: a tick computed from a job a PATCH changed since is not stored. */
    @Override
    public TickOutcome fire(Job job, Instant newNextRunAt, Run run) {
        synchronized (store) {
            Job current = store.jobs.get(job.id());
            if (current == null || !current.spec().equals(job.spec())) {
                return TickOutcome.NOT_ADVANCED;
            }
            return fire(job.id(), job.nextRunAt(), newNextRunAt, run);
        }
    }

    @Override
    public Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                      RunCancellation cancellation, Run insert) {
        return changeStatus(id, expected, next, nextRunAt, cancellation, insert, null, null);
    }

    /** As changeStatus.sql: a pause keeps its note and author, and writes its notice when the job's notify asks. */
    private Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                             RunCancellation cancellation, Run insert, String note, String by) {
        synchronized (store) {
            Job job = store.jobs.get(id);
            if (job == null || job.status() != expected) {
                return Optional.empty();
            }
            Instant now = store.now();
            boolean paused = next == JobStatus.PAUSED;
            Job changed = job.withStatus(next, nextRunAt, now).withSchedule(new io.forgeflow.domain.job.ScheduleState(
                    job.schedule().firedRuns(), paused ? note : null, paused ? by : null,
                    next == JobStatus.ACTIVE ? 0 : job.schedule().deadStreak()));
            store.jobs.put(id, changed);
            if (paused && expected != JobStatus.PAUSED) {
                store.notice(changed, io.forgeflow.domain.job.Notify.PAUSED, null, now);
            }
            if (next == JobStatus.ACTIVE) {
                store.deadStreaks.remove(id);
            }
            List<Run> touched = new java.util.ArrayList<>();
            if (cancellation != RunCancellation.NONE) {
                String reason = "cancelled because job " + id + " was " + next.wireName();
                for (Run run : List.copyOf(store.runs.values())) {
                    if (!run.jobId().equals(id)) {
                        continue;
                    }
                    if (run.status() == RunStatus.PENDING || run.status() == RunStatus.WAITING) {
                        Run cancelled = RunTransitions.cancel(run, now, reason);
                        store.runs.put(run.id(), cancelled);
                        touched.add(cancelled);
                    } else if (run.status() == RunStatus.RUNNING && !run.cancelRequested()
                            && cancellation == RunCancellation.PENDING_AND_RUNNING) {
                        store.runs.put(run.id(), RunTransitions.requestCancel(run));
                    }
                }
            }
            if (insert != null) {
                store.insertRun(insert);
                touched.add(store.runs.get(insert.id()));
            }
            return Optional.of(new JobChange(changed, touched));
        }
    }

    @Override
    public DueJobs dueJobs(int limit) {
        synchronized (store) {
            Instant now = store.now();
            List<Job> due = store.jobs.values().stream()
                    .filter(j -> j.status() == JobStatus.ACTIVE && j.spec().isRecurring() && j.nextRunAt() != null
                            && !j.nextRunAt().isAfter(now))
                    .sorted(Comparator.comparing(Job::nextRunAt).thenComparing(Job::id))
                    .limit(limit)
                    .collect(Collectors.toList());
            return new DueJobs(now, due);
        }
    }

    @Override
    public Optional<java.time.Duration> nextTickIn() {
        synchronized (store) {
            Instant now = store.now();
            return store.jobs.values().stream()
                    .filter(j -> j.status() == JobStatus.ACTIVE && j.spec().isRecurring() && j.nextRunAt() != null)
                    .map(Job::nextRunAt)
                    .min(Comparator.naturalOrder())
                    .map(at -> java.time.Duration.between(now, at));
        }
    }

    @Override
    public TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
        synchronized (store) {
            Job job = store.jobs.get(jobId);
            if (job == null || job.status() != JobStatus.ACTIVE || !Objects.equals(job.nextRunAt(), expectedNextRunAt)) {
                return TickOutcome.NOT_ADVANCED;
            }
            advance(job, newNextRunAt, false);
            if (run == null) {
                return TickOutcome.FIRED;
            }
            List<Run> live = store.runs.values().stream()
                    .filter(r -> r.jobId().equals(jobId)
                            && (r.status() == RunStatus.PENDING || r.status() == RunStatus.RUNNING))
                    .collect(Collectors.toList());
            Overlap overlap = job.spec().overlap();
            if (overlap == Overlap.SKIP && !live.isEmpty()
                    || overlap == Overlap.QUEUE_ONE && live.stream().anyMatch(r -> r.status() == RunStatus.PENDING)) {
                return TickOutcome.SKIPPED_OVERLAP;
            }
            if (overlap == Overlap.CANCEL_RUNNING) {
                for (Run r : live) {
                    store.runs.put(r.id(), r.status() == RunStatus.PENDING
                            ? RunTransitions.cancel(r, store.now(),
                                    "cancelled: a newer tick replaced it (overlap cancel_running)")
                            : r.cancelRequested() ? r : RunTransitions.requestCancel(r));
                }
            }
            boolean taken = store.tickRuns.stream().map(store.runs::get)
                    .anyMatch(r -> r.jobId().equals(jobId) && r.scheduledFor().equals(run.scheduledFor()));
            if (!taken) {
                store.insertRun(run);
                store.tickRuns.add(run.id());
            }
            advance(job, newNextRunAt, true);
            return TickOutcome.FIRED;
        }
    }

    /** The job advanced to its next tick, counting a fired run; completed when no tick is left or max_runs is reached. */
    private void advance(Job job, Instant newNextRunAt, boolean fired) {
        int count = job.schedule().firedRuns() + (fired ? 1 : 0);
        boolean done = newNextRunAt == null || job.spec().schedule().exhausted(count);
        store.jobs.put(job.id(), new Job(job.id(), job.spec(), done ? JobStatus.COMPLETED : job.status(),
                done ? null : newNextRunAt, job.createdAt(), job.updatedAt(), job.submittedVia(), job.trace(),
                new io.forgeflow.domain.job.ScheduleState(count, null, null, job.schedule().deadStreak())));
    }

    @Override
    public Optional<JobChange> pause(String id, JobStatus expected, String note, String by) {
        synchronized (store) {
            return changeStatus(id, expected, JobStatus.PAUSED, null, RunCancellation.PENDING, null, note, by);
        }
    }

    private final java.util.Map<String, BackfillProgress> backfills = new java.util.LinkedHashMap<>();
    private final java.util.Map<String, List<String>> backfillRuns = new java.util.HashMap<>();

    /** {@inheritDoc} A tick has a run when a run of the job stands for it (its scheduled_for, as tick runs here). */
    @Override
    public Optional<BackfillOutcome> backfill(String jobId, String backfillId, io.forgeflow.domain.job.Backfill request,
                                              List<Instant> ticks) {
        synchronized (store) {
            Job job = store.jobs.get(jobId);
            if (job == null || !job.spec().isRecurring()
                    || job.status() != JobStatus.ACTIVE && job.status() != JobStatus.PAUSED) {
                return Optional.empty();
            }
            Instant now = store.now();
            List<Run> created = new java.util.ArrayList<>();
            java.util.Set<Instant> taken = store.tickRuns.stream().map(store.runs::get)
                    .filter(r -> r.jobId().equals(jobId)).map(Run::scheduledFor)
                    .collect(Collectors.toCollection(java.util.HashSet::new));
            for (Instant tick : ticks) {
                if (!taken.add(tick)) {
                    continue;
                }
                io.forgeflow.domain.job.JobSpec spec = job.spec();
                Run run = Run.pending(io.forgeflow.domain.id.Ids.newId(now), jobId, spec.maxAttempts(), spec.priority(),
                        tick, spec.executor(), spec.payload(), spec.timeoutSeconds(), now).withRetry(spec.retry());
                store.insertRun(run);
                store.tickRuns.add(run.id());
                created.add(run);
            }
            backfillRuns.put(backfillId, created.stream().map(Run::id).toList());
            backfills.put(backfillId, new BackfillProgress(backfillId, jobId, request.from(), request.to(),
                    request.overlap(), ticks.size(), created.size(), now, java.util.Map.of()));
            return backfillProgress(jobId, backfillId).map(p -> new BackfillOutcome(p, created));
        }
    }

    @Override
    public Optional<BackfillProgress> backfillProgress(String jobId, String backfillId) {
        synchronized (store) {
            BackfillProgress b = backfills.get(backfillId);
            if (b == null || !b.jobId().equals(jobId)) {
                return Optional.empty();
            }
            java.util.Map<String, Long> counts = backfillRuns.get(backfillId).stream().map(store.runs::get)
                    .filter(Objects::nonNull)
                    .collect(Collectors.groupingBy(r -> r.status().wireName(), Collectors.counting()));
            return Optional.of(new BackfillProgress(b.id(), b.jobId(), b.from(), b.to(), b.overlap(), b.ticks(),
                    b.created(), b.createdAt(), counts));
        }
    }
}
