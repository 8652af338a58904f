package io.forgeflow.application.job;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.trace.TraceContext;
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
    private final Tracing tracing;

    public TriggerJob(JobRepository jobs, RunRepository runs, WorkSignal signal, Clock clock) {
        this(jobs, runs, signal, clock, Tracing.NONE);
    }

    public TriggerJob(JobRepository jobs, RunRepository runs, WorkSignal signal, Clock clock, Tracing tracing) {
        this.tracing = tracing == null ? Tracing.NONE : tracing;
        this.jobs = jobs;
        this.runs = runs;
        this.signal = signal;
        this.clock = clock;
    }

    public Run trigger(String id) {
        return trigger(id, null);
    }

    /**
     * Triggers under the caller's trace context ({@code incoming}, null for none): the run's span is a child of the
     * trigger's span; without any context, it continues the job's submission trace as a scheduler tick does.
     */
    public Run trigger(String id, TraceContext incoming) {
        Tracing.Span span = incoming == null ? null : tracing.submission("trigger", incoming);
        try {
            Run run = insert(id, span == null ? null : span.context());
            if (span != null) {
                span.attribute("forgeflow.job.id", id);
                span.attribute("messaging.message.id", run.id());
                span.end(null);
            }
            return run;
        } catch (RuntimeException e) {
            if (span != null) {
                span.end(e.getMessage());
            }
            throw e;
        }
    }

    private Run insert(String id, TraceContext origin) {
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.CANCELLED || job.status() == JobStatus.DELETED) {
            throw JobControls.illegal(job, "triggered");
        }
        Instant now = clock.instant();
        JobSpec spec = job.spec();
        Run run = runs.insert(Run.pending(Ids.newId(now), id, spec.maxAttempts(), spec.priority(), now, spec.executor(),
                spec.payload(), spec.timeoutSeconds(), now).withTrace(RunTrace.under(origin)).withRetry(spec.retry()));
        signal.runsBecameDue();
        return run;
    }
}
