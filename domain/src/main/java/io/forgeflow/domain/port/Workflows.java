package io.forgeflow.domain.port;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.workflow.BatchPlan;
import io.forgeflow.domain.workflow.Dependencies;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where workflows are kept: jobs that wait for parents, and batches (docs/API.md, "Workflows"). The store decides a
 * waiting run in the transaction that ends its last parent.
 */
public interface Workflows {
    /**
     * Stores a job with parents and its waiting first run, links the parents and decides the run at once if they have
     * ended already; all in one transaction. An unknown or recurring parent is a
     * {@link io.forgeflow.domain.error.ValidationException} naming {@code depends_on}; with an idempotency key already
     * used, the holder (created false).
     */
    JobRepository.JobCreation createWithParents(Job job, Run waitingRun, Dependencies dependencies);

    /** Creates a batch's jobs, runs, edges and on_complete job in one transaction; or answers the batch holding its key. */
    BatchCreation createBatch(BatchPlan plan, List<Job> jobs, List<Run> runs, Job onComplete, Run onCompleteRun,
                              String batchId, String requestHash, Instant now);

    Optional<BatchProgress> findBatch(String id);

    /** A job's parents (in the order given) and its first {@code childLimit} children; empty when no such job. */
    Optional<JobLinks> links(String jobId, int childLimit);

    /**
     * The parents, policy and batch of each of these jobs, without the linked jobs' details (jobs with neither parents
     * nor a batch are absent): what a list of jobs shows.
     */
    Map<String, JobLinks> workflowOf(List<String> jobIds);

    /** The leader's round: completes batches whose jobs have all ended; returns their ids. */
    List<String> completeBatches(int limit);

    /** The leader's round: decides children the store could not decide when their parent ended; returns how many. */
    int recheckChildren(int limit);

    /** A created (or replayed) batch. */
    record BatchCreation(BatchProgress batch, List<String> jobIds, Map<String, String> refs, boolean created) {
    }

    /** A batch and where its jobs stand (counts by their latest run's status). */
    record BatchProgress(String id, String name, String idempotencyKey, String requestHash, Instant createdAt,
                         Instant completedAt, int total, int waiting, int pending, int running, int succeeded,
                         int dead, int cancelled, String onCompleteJobId, String tenant) {
        public BatchProgress {
            tenant = io.forgeflow.domain.tenant.Tenants.orDefault(tenant);
        }

        /** A batch of the default tenant. */
        public BatchProgress(String id, String name, String idempotencyKey, String requestHash, Instant createdAt,
                             Instant completedAt, int total, int waiting, int pending, int running, int succeeded,
                             int dead, int cancelled, String onCompleteJobId) {
            this(id, name, idempotencyKey, requestHash, createdAt, completedAt, total, waiting, pending, running,
                    succeeded, dead, cancelled, onCompleteJobId, null);
        }

        public String status() {
            return completedAt == null ? "open" : "completed";
        }
    }

    /** A job linked to another: its name, status and its latest run's status (null when it has no run). */
    record LinkedJob(String id, String name, String status, String runStatus) {
    }

    /** A job's place in a workflow. */
    record JobLinks(Dependencies dependencies, String batchId, List<LinkedJob> parents, List<LinkedJob> children) {
        public JobLinks {
            parents = List.copyOf(parents);
            children = List.copyOf(children);
        }
    }
}
