package io.forgeflow.application.testkit;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.workflow.BatchPlan;
import io.forgeflow.domain.workflow.Dependencies;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Workflows kept beside an {@link InMemoryStore}, for tests of the REST shapes: stores jobs with parents (their runs
 * waiting) and batches, and answers links and progress from the store. It does not decide waiting runs when parents
 * end (PostgreSQL's trigger does; its tests run on PostgreSQL).
 */
public final class InMemoryWorkflows implements Workflows {
    private final InMemoryStore store;
    private final Map<String, Dependencies> parents = new HashMap<>();
    private final Map<String, String> batchOf = new HashMap<>();
    private final Map<String, Stored> batches = new LinkedHashMap<>();

    private record Stored(BatchProgress batch, List<String> jobIds, Map<String, String> refs) {
    }

    public InMemoryWorkflows(InMemoryStore store) {
        this.store = store;
    }

    /** Drops everything (between tests). */
    public void clear() {
        synchronized (store) {
            parents.clear();
            batchOf.clear();
            batches.clear();
        }
    }

    @Override
    public JobCreation createWithParents(Job job, Run waitingRun, Dependencies dependencies) {
        synchronized (store) {
            for (String parent : dependencies.parents()) {
                Job p = store.jobs.get(parent);
                if (p == null) {
                    throw new ValidationException("depends_on", "depends_on: no job " + parent);
                }
                if (p.spec().isRecurring()) {
                    throw new ValidationException("depends_on", "depends_on: job " + parent + " is recurring");
                }
            }
            JobCreation creation = store.jobs().create(job, waitingRun);
            if (creation.created()) {
                parents.put(job.id(), dependencies);
            }
            return creation;
        }
    }

    @Override
    public BatchCreation createBatch(BatchPlan plan, List<Job> jobs, List<Run> runs, Job onComplete,
                                     Run onCompleteRun, String batchId, String requestHash, Instant now) {
        synchronized (store) {
            if (plan.idempotencyKey() != null) {
                for (Stored s : batches.values()) {
                    if (plan.idempotencyKey().equals(s.batch().idempotencyKey())) {
                        return new BatchCreation(progress(s.batch()), s.jobIds(), s.refs(), false);
                    }
                }
            }
            String[] ids = new String[jobs.size()];
            Map<String, String> refs = new LinkedHashMap<>();
            for (int k = 0; k < jobs.size(); k++) {
                store.jobs().create(jobs.get(k), runs.get(k));
                BatchPlan.Planned p = plan.jobs().get(k);
                ids[p.index()] = jobs.get(k).id();
                batchOf.put(jobs.get(k).id(), batchId);
            }
            for (BatchPlan.Planned p : plan.jobs()) {
                List<String> all = new ArrayList<>(p.externalParents());
                p.batchParents().forEach(i -> all.add(ids[i]));
                if (!all.isEmpty()) {
                    parents.put(ids[p.index()], new Dependencies(all, p.onParentFailure()));
                }
                if (p.ref() != null) {
                    refs.put(p.ref(), ids[p.index()]);
                }
            }
            if (onComplete != null) {
                store.jobs().create(onComplete, onCompleteRun);
            }
            BatchProgress batch = new BatchProgress(batchId, plan.name(), plan.idempotencyKey(), requestHash, now,
                    null, jobs.size(), 0, 0, 0, 0, 0, 0, onComplete == null ? null : onComplete.id());
            Stored stored = new Stored(batch, List.of(ids), refs);
            batches.put(batchId, stored);
            return new BatchCreation(progress(batch), stored.jobIds(), refs, true);
        }
    }

    private BatchProgress progress(BatchProgress b) {
        Map<RunStatus, Integer> counts = new HashMap<>();
        for (Map.Entry<String, String> e : batchOf.entrySet()) {
            if (e.getValue().equals(b.id())) {
                store.allRuns().stream().filter(r -> r.jobId().equals(e.getKey())).findFirst()
                        .ifPresent(r -> counts.merge(r.status(), 1, Integer::sum));
            }
        }
        return new BatchProgress(b.id(), b.name(), b.idempotencyKey(), b.requestHash(), b.createdAt(),
                b.completedAt(), b.total(), counts.getOrDefault(RunStatus.WAITING, 0),
                counts.getOrDefault(RunStatus.PENDING, 0), counts.getOrDefault(RunStatus.RUNNING, 0),
                counts.getOrDefault(RunStatus.SUCCEEDED, 0), counts.getOrDefault(RunStatus.DEAD, 0),
                counts.getOrDefault(RunStatus.CANCELLED, 0), b.onCompleteJobId());
    }

    @Override
    public Optional<BatchProgress> findBatch(String id) {
        synchronized (store) {
            Stored s = batches.get(id);
            return s == null ? Optional.empty() : Optional.of(progress(s.batch()));
        }
    }

    @Override
    public Optional<JobLinks> links(String jobId, int childLimit) {
        synchronized (store) {
            if (!store.jobs.containsKey(jobId)) {
                return Optional.empty();
            }
            Dependencies own = parents.getOrDefault(jobId, Dependencies.NONE);
            List<LinkedJob> up = own.parents().stream().map(this::linked).toList();
            List<LinkedJob> down = parents.entrySet().stream()
                    .filter(e -> e.getValue().parents().contains(jobId)).map(e -> linked(e.getKey()))
                    .limit(childLimit).toList();
            return Optional.of(new JobLinks(own, batchOf.get(jobId), up, down));
        }
    }

    private LinkedJob linked(String id) {
        Job job = store.jobs.get(id);
        String run = store.allRuns().stream().filter(r -> r.jobId().equals(id)).findFirst()
                .map(r -> r.status().wireName()).orElse(null);
        return new LinkedJob(id, job == null ? null : job.spec().name(),
                job == null ? null : job.status().wireName(), run);
    }

    /** How many times {@link #workflowOf} was asked (a submission of a job without parents should not ask). */
    public final java.util.concurrent.atomic.AtomicInteger workflowQueries = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public Map<String, JobLinks> workflowOf(List<String> jobIds) {
        workflowQueries.incrementAndGet();
        synchronized (store) {
            Map<String, JobLinks> out = new HashMap<>();
            for (String id : jobIds) {
                if (parents.containsKey(id) || batchOf.containsKey(id)) {
                    out.put(id, new JobLinks(parents.getOrDefault(id, Dependencies.NONE), batchOf.get(id), List.of(),
                            List.of()));
                }
            }
            return out;
        }
    }

    @Override
    public List<String> completeBatches(int limit) {
        return List.of();
    }

    @Override
    public int recheckChildren(int limit) {
        return 0;
    }
}
