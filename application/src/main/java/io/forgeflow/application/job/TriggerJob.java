package io.forgeflow.application.job;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.run.Run;

import java.time.Clock;
import java.time.Instant;

/** Enqueues a run of a job right now, whatever its schedule. Refused (409) for a cancelled or deleted job. */
public final class TriggerJob {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final WorkSignal signal;
    private final Clock clock;

    public TriggerJob(JobRepository jobs, RunRepository runs, WorkSignal signal, Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.signal = signal;
        this.clock = clock;
    }

    public Run trigger(String id) {
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.CANCELLED || job.status() == JobStatus.DELETED) {
            throw JobControls.illegal(job, "triggered");
        }
        Instant now = clock.instant();
        JobSpec spec = job.spec();
        Run run = runs.insert(Run.pending(Ids.newId(now), id, spec.maxAttempts(), spec.priority(), now, spec.executor(),
                spec.payload(), spec.timeoutSeconds(), now).withRetry(spec.retry()));
        signal.runsBecameDue();
        return run;
    }
}
