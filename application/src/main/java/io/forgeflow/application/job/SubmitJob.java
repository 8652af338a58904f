package io.forgeflow.application.job;

import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.trace.TraceContext;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.Notify;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.workflow.Dependencies;

import java.time.Clock;
import java.time.Instant;

/**
 * Submits a job: validates it completely (fields, executor payload, cron), stores it with its first run (one-off
 * jobs) or its first tick (recurring jobs) in one transaction, and wakes idle workers when a run is due now.
 * With an idempotency key already used: the same body returns the existing job, another body is a conflict, and
 * no second job is ever created. With a unique key a live job holds: a conflict naming that job, or that job when
 * the draft asks for {@code return_existing}.
 */
public final class SubmitJob {
    private final JobRepository jobs;
    private final JobAdmission admission;
    private final CronSchedules cron;
    private final WorkSignal signal;
    private final Clock clock;
    private final Tracing tracing;
    private final Workflows workflows;
    private final java.util.function.Consumer<String> joined;

    public SubmitJob(JobRepository jobs, ExecutorRegistry executors, CronSchedules cron, WorkSignal signal, Clock clock) {
        this(jobs, executors, cron, signal, clock, Tracing.NONE);
    }

    public SubmitJob(JobRepository jobs, ExecutorRegistry executors, CronSchedules cron, WorkSignal signal, Clock clock,
                     Tracing tracing) {
        this(jobs, executors, cron, signal, clock, tracing, null);
    }

    /** @param workflows where jobs with parents are stored; null: {@code depends_on} is refused (no such store) */
    public SubmitJob(JobRepository jobs, ExecutorRegistry executors, CronSchedules cron, WorkSignal signal, Clock clock,
                     Tracing tracing, Workflows workflows) {
        this(jobs, JobAdmission.of(executors), cron, signal, clock, tracing, workflows);
    }

    /**
     * @param admission what each job passes before it is stored (the cluster's default notify, reserved keys, the
     *                  executor payload); the same one as the node's {@link io.forgeflow.application.workflow.SubmitBatch}
     */
    public SubmitJob(JobRepository jobs, JobAdmission admission, CronSchedules cron, WorkSignal signal, Clock clock,
                     Tracing tracing, Workflows workflows) {
        this(jobs, admission, cron, signal, clock, tracing, workflows, edge -> { });
    }

    private SubmitJob(JobRepository jobs, JobAdmission admission, CronSchedules cron, WorkSignal signal, Clock clock,
                      Tracing tracing, Workflows workflows, java.util.function.Consumer<String> joined) {
        this.admission = java.util.Objects.requireNonNull(admission, "admission");
        this.joined = joined;
        this.workflows = workflows;
        this.tracing = tracing == null ? Tracing.NONE : tracing;
        this.jobs = jobs;
        this.cron = cron;
        this.signal = signal;
        this.clock = clock;
    }

    /**
     * The same use case giving a job submitted without {@code notify} the cluster's default ({@code
     * FORGEFLOW_NOTIFY_URL}, {@code FORGEFLOW_NOTIFY_ON}; checked; null: none), except the notices' own jobs.
     */
    public SubmitJob withNotifyDefault(Notify checked) {
        return new SubmitJob(jobs, admission.withNotifyDefault(checked), cron, signal, clock, tracing, workflows, joined);
    }

    /** The same use case for the system's own jobs (the notices'): reserved idempotency keys, no default notify. */
    public SubmitJob forTheSystem() {
        return new SubmitJob(jobs, admission.forTheSystem(), cron, signal, clock, tracing, workflows, joined);
    }

    /** The same use case telling {@code counter} the debounce edge of each submission it joined to a run. */
    public SubmitJob withDebounceCounter(java.util.function.Consumer<String> counter) {
        return new SubmitJob(jobs, admission, cron, signal, clock, tracing, workflows, counter);
    }

    /**
     * A job's notify URL as the http executor would take it ({@code notify.url}): its guard refuses a literal private
     * or loopback address the same way (422 on {@code notify.url}). Nothing for a spec without notify.
     */
    public static void checkNotifyTarget(ExecutorRegistry executors, JobSpec spec) {
        if (spec.notices() == null) {
            return;
        }
        if (!executors.knownNames().contains("http")) {
            throw new ValidationException("notify.url", "notify needs the http executor, which this node does not "
                    + "have: notices are sent as http jobs");
        }
        try {
            executors.validate("http", java.util.Map.of("url", spec.notices().url()));
        } catch (ValidationException e) {
            throw new ValidationException("notify.url", e.getMessage().replace("payload.url", "notify.url"));
        }
    }

    /** The stored job and whether this call created it (false: an idempotent replay). */
    public JobCreation submit(JobDraft draft) {
        return submit(draft, null);
    }

    /**
     * Submits under the caller's trace context ({@code incoming}, null for none): the job stores the context of the
     * submission's span, or {@code incoming} itself when not tracing.
     */
    public JobCreation submit(JobDraft draft, TraceContext incoming) {
        return submit(draft, Dependencies.NONE, incoming);
    }

    /** Submits a job that waits for {@code dependencies} (validated by {@link Dependencies#validate}); NONE for none. */
    public JobCreation submit(JobDraft draft, Dependencies dependencies, TraceContext incoming) {
        return submit(io.forgeflow.domain.tenant.Tenants.DEFAULT, draft, dependencies, incoming);
    }

    /** As {@link #submit(JobDraft, Dependencies, TraceContext)}, the job in {@code tenant} (a checked name). */
    public JobCreation submit(String tenant, JobDraft draft, Dependencies dependencies, TraceContext incoming) {
        io.forgeflow.domain.tenant.Tenants.require("tenant", tenant);
        Tracing.Span span = tracing.submission("submit", incoming);
        try {
            JobCreation creation = store(tenant, draft, dependencies == null ? Dependencies.NONE : dependencies,
                    span.context());
            span.attribute("forgeflow.job.id", creation.job().id());
            span.attribute("messaging.destination.name", creation.job().spec().queue());
            span.attribute("forgeflow.executor", creation.job().spec().executor());
            span.end(null);
            return creation;
        } catch (RuntimeException e) {
            span.end(e.getMessage());
            throw e;
        }
    }

    private JobCreation store(String tenant, JobDraft draft, Dependencies dependencies, TraceContext trace) {
        JobSpec spec = admission.admit(draft.validate());
        if (!dependencies.isEmpty()) {
            checkParentsAllowed(spec);
        }
        Instant now = clock.instant();
        String jobId = Ids.newId(now);
        Run firstRun = null;
        Instant nextRunAt;
        if (spec.isRecurring()) {
            cron.validate(spec.cronExpr());
            nextRunAt = io.forgeflow.application.schedule.FirstTick.required(cron, spec, now);
        } else {
            Instant due = spec.runAt() == null ? now : spec.runAt();
            firstRun = Run.pending(Ids.newId(now), jobId, spec.maxAttempts(), spec.priority(), due, spec.executor(),
                    spec.payload(), spec.timeoutSeconds(), now).withRetry(spec.retry()).inTenant(tenant);
            nextRunAt = due;
        }
        Job job = Job.submitted(jobId, spec, nextRunAt, now, trace, tenant);
        JobCreation creation;
        try {
            creation = dependencies.isEmpty() ? jobs.create(job, firstRun)
                    : workflows.createWithParents(job, firstRun.waitingForParents(), dependencies);
        } catch (ConflictException e) {
            if (!ConflictException.UNIQUE_CONFLICT.equals(e.code()) || !draft.returnsExistingOnUniqueConflict()) {
                throw e;
            }
            // the holder may be gone by now (retention); then the conflict stands as it was reported
            return jobs.find(e.jobId()).map(holder -> new JobCreation(holder, false)).orElseThrow(() -> e);
        }
        if (creation.debouncedInto() != null) {
            joined.accept(spec.debounce().edge());
            return creation; // joined to a run of its debounce key: nothing was stored
        }
        if (!creation.created()) {
            if (!creation.job().spec().sameRequestAs(spec)) {
                throw ConflictException.idempotencyKeyUsed(spec.idempotencyKey(), creation.job().id());
            }
            return creation;
        }
        if (firstRun != null && dependencies.isEmpty() && !firstRun.scheduledFor().isAfter(now)) {
            signal.runsBecameDue(); // a child's run the store made pending at once wakes workers from the store
        }
        return creation;
    }

    private void checkParentsAllowed(JobSpec spec) {
        if (workflows == null) {
            throw new ValidationException("depends_on", "depends_on needs a node with a PostgreSQL store");
        }
        if (spec.isRecurring()) {
            throw new ValidationException("depends_on", "depends_on applies to one-off jobs only: a recurring job "
                    + "cannot wait for parents; leave cron_expr or depends_on out");
        }
        if (spec.uniqueKey() != null) {
            throw new ValidationException("depends_on", "depends_on cannot be combined with unique_key: leave one out");
        }
        if (spec.sequenceKey() != null) {
            throw new ValidationException("depends_on", "depends_on cannot be combined with sequence_key: a run waits "
                    + "either for its parents or for its turn in a sequence; leave one out");
        }
        if (spec.debounce() != null) {
            throw new ValidationException("depends_on", "depends_on cannot be combined with debounce: a debounced "
                    + "submission may join another's run; leave one out");
        }
    }
}
