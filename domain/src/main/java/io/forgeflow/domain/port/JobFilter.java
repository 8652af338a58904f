package io.forgeflow.domain.port;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;

import java.util.Map;

/**
 * What {@code GET /api/jobs} lists: every given condition must hold (null or empty: no condition).
 *
 * @param status     only jobs in this status; null lists every job but deleted ones
 * @param queue      only jobs of this queue
 * @param labels     only jobs carrying every one of these labels (key and value equal)
 * @param namePrefix only jobs whose name starts with this (case-sensitive)
 * @param tenant     only jobs of this tenant
 */
public record JobFilter(JobStatus status, String queue, Map<String, String> labels, String namePrefix,
                        String tenant) {
    /** Jobs of every tenant. */
    public JobFilter(JobStatus status, String queue, Map<String, String> labels, String namePrefix) {
        this(status, queue, labels, namePrefix, null);
    }

    /** The same filter, within {@code newTenant} (null: every tenant). */
    public JobFilter inTenant(String newTenant) {
        return new JobFilter(status, queue, labels, namePrefix, newTenant);
    }

    /** Every job but deleted ones. */
    public static final JobFilter ALL = new JobFilter(null, null, Map.of(), null);

    public JobFilter {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** Only a status (or none). */
    public static JobFilter status(JobStatus status) {
        return new JobFilter(status, null, Map.of(), null);
    }

    /** Whether {@code job} passes, as the stores decide it. */
    public boolean matches(Job job) {
        return (status == null ? job.status() != JobStatus.DELETED : job.status() == status)
                && (queue == null || queue.equals(job.spec().queue()))
                && job.spec().labels().entrySet().containsAll(labels.entrySet())
                && (namePrefix == null || job.spec().name().startsWith(namePrefix))
                && (tenant == null || tenant.equals(job.tenant()));
    }
}
