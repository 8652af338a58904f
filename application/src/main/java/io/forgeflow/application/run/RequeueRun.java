package io.forgeflow.application.run;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.workflow.ParentFailure;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

/**
 * Sends a dead or cancelled run back to pending, due now, with a fresh attempt budget (its job's
 * {@code max_attempts}); its attempt history is kept.
 */
public final class RequeueRun {
    /** The conflict's code when a child's parent has not succeeded. */
    public static final String PARENT_NOT_SUCCEEDED = "parent_not_succeeded";

    private final RunRepository runs;
    private final JobRepository jobs;
    private final WorkSignal signal;
    private final Workflows workflows;

    public RequeueRun(RunRepository runs, JobRepository jobs, WorkSignal signal) {
        this(runs, jobs, signal, null);
    }

    /**
     * @param workflows where a child's parents are read: a child whose parent has not succeeded is refused (409
     *                  {@code parent_not_succeeded}, naming the parent) unless its {@code on_parent_failure} is
     *                  {@code run}; null: no workflows (every run can be requeued)
     */
    public RequeueRun(RunRepository runs, JobRepository jobs, WorkSignal signal, Workflows workflows) {
        this.runs = runs;
        this.jobs = jobs;
        this.signal = signal;
        this.workflows = workflows;
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
        refuseBeforeItsParents(run);
        int budget = job == null ? run.maxAttempts() : job.spec().maxAttempts();
        Run requeued = runs.requeue(id, budget).orElseThrow(() -> new ConflictException(
                "run " + id + " changed while this request ran; read it again and retry"));
        signal.runsBecameDue();
        return requeued;
    }

    /** A child runs after its parents: requeued before they succeed, it would run at once beside a dead parent. */
    private void refuseBeforeItsParents(Run run) {
        if (workflows == null) {
            return;
        }
        Workflows.JobLinks links = workflows.links(run.jobId(), 0).orElse(null);
        if (links == null || links.parents().isEmpty()
                || links.dependencies().onParentFailure() == ParentFailure.RUN) {
            return;
        }
        for (Workflows.LinkedJob parent : links.parents()) {
            if (!RunStatus.SUCCEEDED.wireName().equals(parent.runStatus())) {
                throw new ConflictException("id", "run " + run.id() + " belongs to a child of job " + parent.id()
                        + " (" + parent.name() + "), whose latest run is "
                        + (parent.runStatus() == null ? "gone" : parent.runStatus())
                        + ": requeue that parent's run first (its children then wait for it again), or change this "
                        + "job's on_parent_failure to run", PARENT_NOT_SUCCEEDED, parent.id());
            }
        }
    }
}
