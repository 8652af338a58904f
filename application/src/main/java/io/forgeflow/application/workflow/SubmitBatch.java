package io.forgeflow.application.workflow;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.port.Workflows.BatchCreation;
import io.forgeflow.domain.port.Workflows.BatchProgress;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.TraceContext;
import io.forgeflow.domain.workflow.BatchPlan;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * Creates a batch (docs/API.md, "Workflows"): validates every job (fields, executor payloads, refs, cycles), then
 * stores all of them, their runs (waiting when they have parents), the edges and the on_complete job in one
 * transaction. A replay of the batch's idempotency key answers the batch it made; another request with it is a
 * conflict.
 */
public final class SubmitBatch {
    private final Workflows workflows;
    private final io.forgeflow.application.job.JobAdmission admission;
    private final WorkSignal signal;
    private final Clock clock;
    private final IntConsumer created;

    /**
     * @param admission what each job passes before it is stored, the same as the node's single submissions (the
     *                  cluster's default notify, reserved keys, executor payloads)
     * @param created   told the number of jobs of each batch created (a counter)
     */
    public SubmitBatch(Workflows workflows, io.forgeflow.application.job.JobAdmission admission, WorkSignal signal,
                       Clock clock, IntConsumer created) {
        this.workflows = Objects.requireNonNull(workflows, "workflows");
        this.admission = Objects.requireNonNull(admission, "admission");
        this.signal = Objects.requireNonNull(signal, "signal");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.created = Objects.requireNonNull(created, "created");
    }

    /**
     * @param requestHash a digest of the request body as received, for telling an idempotent replay from a different
     *                    request with the same key
     * @param trace       the submission's trace context, stored with every job (null: none)
     */
    public BatchCreation submit(BatchPlan plan, String requestHash, TraceContext trace) {
        return submit(io.forgeflow.domain.tenant.Tenants.DEFAULT, plan, requestHash, trace);
    }

    /** As {@link #submit(BatchPlan, String, TraceContext)}: the batch and all its jobs in {@code tenant}. */
    public BatchCreation submit(String tenant, BatchPlan plan, String requestHash, TraceContext trace) {
        Objects.requireNonNull(plan, "plan");
        io.forgeflow.domain.tenant.Tenants.require("tenant", tenant);
        admission.checkKey("idempotency_key", plan.idempotencyKey());
        List<JobSpec> specs = new ArrayList<>(plan.jobs().size());
        for (BatchPlan.Planned p : plan.jobs()) {
            try {
                specs.add(admission.admit(p.spec()));
            } catch (ValidationException e) {
                String prefix = "jobs[" + p.index() + "].";
                throw new ValidationException(e.field() == null ? "jobs[" + p.index() + "]" : prefix + e.field(),
                        prefix + e.getMessage());
            }
        }
        JobSpec onComplete = null;
        if (plan.onComplete() != null) {
            try {
                onComplete = admission.admit(plan.onComplete());
            } catch (ValidationException e) {
                throw new ValidationException(e.field() == null ? "on_complete" : "on_complete." + e.field(),
                        "on_complete." + e.getMessage());
            }
        }
        Instant now = clock.instant();
        String batchId = Ids.newId(now);
        List<Job> jobs = new ArrayList<>(plan.jobs().size());
        List<Run> runs = new ArrayList<>(plan.jobs().size());
        boolean dueNow = false;
        for (BatchPlan.Planned p : plan.jobs()) {
            JobSpec spec = specs.get(jobs.size());
            String jobId = Ids.newId(now);
            Instant due = spec.runAt() == null ? now : spec.runAt();
            jobs.add(Job.submitted(jobId, spec, due, now, trace, tenant));
            Run run = Run.pending(Ids.newId(now), jobId, spec.maxAttempts(), spec.priority(), due, spec.executor(),
                    spec.payload(), spec.timeoutSeconds(), now).withRetry(spec.retry()).inTenant(tenant);
            runs.add(p.hasParents() ? run.waitingForParents() : run);
            dueNow |= !p.hasParents() && !due.isAfter(now);
        }
        Job then = null;
        Run thenRun = null;
        if (onComplete != null) {
            JobSpec spec = onComplete;
            String jobId = Ids.newId(now);
            Instant due = spec.runAt() == null ? now : spec.runAt();
            then = Job.submitted(jobId, spec, due, now, trace, tenant);
            thenRun = Run.pending(Ids.newId(now), jobId, spec.maxAttempts(), spec.priority(), due, spec.executor(),
                    spec.payload(), spec.timeoutSeconds(), now).withRetry(spec.retry()).inTenant(tenant).waitingForParents();
        }
        BatchCreation creation = workflows.createBatch(plan, jobs, runs, then, thenRun, batchId, requestHash, now);
        if (!creation.created()) {
            if (!Objects.equals(creation.batch().requestHash(), requestHash)) {
                throw ConflictException.batchKeyUsed(plan.idempotencyKey(), creation.batch().id());
            }
            return creation;
        }
        created.accept(jobs.size());
        if (dueNow) {
            signal.runsBecameDue();
        }
        return creation;
    }

    /** The batch and its progress; 404 when unknown. */
    public BatchProgress get(String id) {
        return workflows.findBatch(id).orElseThrow(() -> new NotFoundException("batch", id));
    }
}
