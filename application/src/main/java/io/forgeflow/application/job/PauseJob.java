package io.forgeflow.application.job;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.RunCancellation;

/** Pauses a job: no new ticks fire, its pending runs become cancelled. Pausing a paused job changes nothing. */
public final class PauseJob {
    private final JobRepository jobs;
    private final Tracing tracing;

    public PauseJob(JobRepository jobs) {
        this(jobs, Tracing.NONE);
    }

    /** Records the run span of every pending run it cancels. */
    public PauseJob(JobRepository jobs, Tracing tracing) {
        this.jobs = jobs;
        this.tracing = tracing;
    }

    public Job pause(String id) {
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.PAUSED) {
            return job;
        }
        if (!job.status().canMoveTo(JobStatus.PAUSED)) {
            throw JobControls.illegal(job, "paused");
        }
        return JobControls.orRaced(JobControls.traced(tracing, jobs.changeStatus(id, job.status(), JobStatus.PAUSED,
                null, RunCancellation.PENDING, null)), id);
    }
}
