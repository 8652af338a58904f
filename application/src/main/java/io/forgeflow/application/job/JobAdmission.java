package io.forgeflow.application.job;

import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.Notify;

import java.util.Objects;

/**
 * What every new job passes before it is stored, whichever way it came in (a job alone, a batch's jobs and its
 * on_complete, over REST or gRPC): the one place that gives a job without {@code notify} the cluster's default
 * ({@code FORGEFLOW_NOTIFY_URL}, except the notices' own jobs), refuses an idempotency key a user may not use
 * ({@value #RESERVED_KEY_PREFIX}..., the notices' own), and checks the executor payload and the notify URL.
 * {@link SubmitJob} and {@link io.forgeflow.application.workflow.SubmitBatch} both take one.
 */
public final class JobAdmission {
    /** Idempotency keys the system keeps for itself: the notices' http jobs are {@code notice:<id>}. */
    public static final String RESERVED_KEY_PREFIX = "notice:";

    private final ExecutorRegistry executors;
    private final Notify notifyDefault;
    private final boolean system;

    private JobAdmission(ExecutorRegistry executors, Notify notifyDefault, boolean system) {
        this.executors = Objects.requireNonNull(executors, "executors");
        this.notifyDefault = notifyDefault;
        this.system = system;
    }

    /** Users' submissions without a default notify. */
    public static JobAdmission of(ExecutorRegistry executors) {
        return new JobAdmission(executors, null, false);
    }

    /** The same, giving a job submitted without notify {@code checked} (null: none). */
    public JobAdmission withNotifyDefault(Notify checked) {
        return new JobAdmission(executors, checked, system);
    }

    /** The system's own submissions (the notices' jobs): reserved keys allowed, never a default notify. */
    public JobAdmission forTheSystem() {
        return new JobAdmission(executors, null, true);
    }

    /**
     * The spec as it is stored: with the default notify when it gave none; refused with a {@link ValidationException}
     * naming the field ({@code idempotency_key}, {@code payload...}, {@code notify.url}).
     */
    public JobSpec admit(JobSpec spec) {
        checkKey("idempotency_key", spec.idempotencyKey());
        JobSpec admitted = spec;
        if (spec.notices() == null && notifyDefault != null && !Notify.QUEUE.equals(spec.queue())) {
            admitted = spec.withNotify(notifyDefault);
        }
        executors.validate(admitted.executor(), admitted.payload());
        SubmitJob.checkNotifyTarget(executors, admitted);
        return admitted;
    }

    /** Refuses a user's key in the system's namespace ({@value #RESERVED_KEY_PREFIX}...), as a 422 naming field. */
    public void checkKey(String field, String key) {
        if (!system && key != null && key.startsWith(RESERVED_KEY_PREFIX)) {
            throw new ValidationException(field, field + " must not start with \"" + RESERVED_KEY_PREFIX
                    + "\": ForgeFlow keeps those keys for the jobs that send notices; choose another key");
        }
    }
}
