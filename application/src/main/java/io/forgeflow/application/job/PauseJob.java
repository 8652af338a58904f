package io.forgeflow.application.job;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.RunCancellation;

/** Pauses a job: no new ticks fire, its pending runs become cancelled. Pausing a paused job changes nothing. */
public final class PauseJob {
    private final JobRepository jobs;

    public PauseJob(JobRepository jobs) {
        this.jobs = jobs;
    }

    public Job pause(String id) {
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.PAUSED) {
            return job;
        }
        if (!job.status().canMoveTo(JobStatus.PAUSED)) {
            throw JobControls.illegal(job, "paused");
        }
        return JobControls.orRaced(jobs.changeStatus(id, job.status(), JobStatus.PAUSED, null, RunCancellation.PENDING, null), id);
    }
}
