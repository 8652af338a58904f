package io.forgeflow.application.job;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.RunCancellation;

/**
 * Cancels a job for good: no new ticks, pending runs cancelled, and workers asked to stop its running runs.
 * Cancelling a cancelled job changes nothing.
 */
public final class CancelJob {
    private final JobRepository jobs;
    private final Tracing tracing;

    public CancelJob(JobRepository jobs) {
        this(jobs, Tracing.NONE);
    }

    /** Records the run span of every pending run it cancels. */
    public CancelJob(JobRepository jobs, Tracing tracing) {
        this.jobs = jobs;
        this.tracing = tracing;
    }

    public Job cancel(String id) {
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.CANCELLED) {
            return job;
        }
        if (!job.status().canMoveTo(JobStatus.CANCELLED)) {
            throw JobControls.illegal(job, "cancelled");
        }
        return JobControls.orRaced(JobControls.traced(tracing, jobs.changeStatus(id, job.status(),
                JobStatus.CANCELLED, null, RunCancellation.PENDING_AND_RUNNING, null)), id);
    }
}
