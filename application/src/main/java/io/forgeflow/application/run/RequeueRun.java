package io.forgeflow.application.run;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

/**
 * Sends a dead or cancelled run back to pending, due now, with a fresh attempt budget (its job's
 * {@code max_attempts}); its attempt history is kept.
 */
public final class RequeueRun {
    private final RunRepository runs;
    private final JobRepository jobs;
    private final WorkSignal signal;

    public RequeueRun(RunRepository runs, JobRepository jobs, WorkSignal signal) {
        this.runs = runs;
        this.jobs = jobs;
        this.signal = signal;
    }

    public Run requeue(String id) {
        Run run = runs.find(id).orElseThrow(() -> new NotFoundException("run", id));
        if (run.status() != RunStatus.DEAD && run.status() != RunStatus.CANCELLED) {
            throw new ConflictException("run " + id + " is " + run.status().wireName()
                    + " and cannot be requeued: only dead and cancelled runs can");
        }
        Job job = jobs.find(run.jobId()).orElse(null);
        if (job != null && job.status() == JobStatus.CANCELLED) {
            throw new ConflictException("run " + id + " belongs to job " + job.id() + ", which is cancelled for good: "
                    + "submit a new job to run it again");
        }
        int budget = job == null ? run.maxAttempts() : job.spec().maxAttempts();
        Run requeued = runs.requeue(id, budget).orElseThrow(() -> new ConflictException(
                "run " + id + " changed while this request ran; read it again and retry"));
        signal.runsBecameDue();
        return requeued;
    }
}
