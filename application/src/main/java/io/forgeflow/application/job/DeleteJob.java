package io.forgeflow.application.job;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;

/**
 * Deletes a job ({@code DELETE /api/jobs/{id}}): it becomes a tombstone (status {@code deleted}), out of the lists, with
 * its pending runs cancelled; its finished runs stay readable (their {@code job_id} still finds the tombstone) until
 * retention removes them, or at once with {@code purge}. While a run of the job is running the deletion is refused
 * (409 {@code job_running}) unless {@code cancelRunning}, which asks its worker to stop it. Deleting a deleted job
 * changes nothing (or purges it).
 */
public final class DeleteJob {
    private final JobRepository jobs;
    private final Tracing tracing;

    public DeleteJob(JobRepository jobs) {
        this(jobs, Tracing.NONE);
    }

    /** Records the run span of every pending run it cancels. */
    public DeleteJob(JobRepository jobs, Tracing tracing) {
        this.jobs = jobs;
        this.tracing = tracing;
    }

    /** The tombstone, or empty when {@code purge} removed the job for good. */
    public java.util.Optional<Job> delete(String id, boolean cancelRunning, boolean purge) {
        Job job = JobControls.load(jobs, id);
        Job deleted = job.status() == JobStatus.DELETED ? job
                : JobControls.orRaced(JobControls.traced(tracing, jobs.delete(id, job.status(), cancelRunning)), id);
        if (purge) {
            jobs.purge(id);
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(deleted);
    }
}
