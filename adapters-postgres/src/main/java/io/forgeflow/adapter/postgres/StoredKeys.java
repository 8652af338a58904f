package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.job.Debounce;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.Throttle;
import io.forgeflow.domain.tenant.Tenants;

import java.util.function.UnaryOperator;

/**
 * A job's keys as stored ({@link Tenants#scopedKey}) and as given back ({@link Tenants#unscopedKey}): every writer
 * binds {@link #stored(Job)}'s spec, every reader maps rows through {@link #given(JobSpec)}, so no SQL statement needs
 * to know about tenants to keep their keys apart (migration 0025).
 */
final class StoredKeys {
    private StoredKeys() {
    }

    /** The job with its keys in stored form; the same object in the default tenant. */
    static Job stored(Job job) {
        if (Tenants.DEFAULT.equals(job.tenant())) {
            return job;
        }
        JobSpec spec = map(job.spec(), key -> Tenants.scopedKey(job.tenant(), key));
        return new Job(job.id(), spec, job.status(), job.nextRunAt(), job.createdAt(), job.updatedAt(),
                job.submittedVia(), job.trace(), job.schedule(), job.tenant());
    }

    /** The spec with its keys as the tenant gave them. */
    static JobSpec given(JobSpec spec) {
        return map(spec, Tenants::unscopedKey);
    }

    private static JobSpec map(JobSpec s, UnaryOperator<String> key) {
        Debounce d = s.debounce() == null ? null
                : new Debounce(key.apply(s.debounce().key()), s.debounce().periodSeconds(),
                s.debounce().maxWaitSeconds(), s.debounce().edge());
        Throttle t = s.throttle() == null ? null
                : new Throttle(key.apply(s.throttle().key()), s.throttle().count(), s.throttle().perSeconds());
        return new JobSpec(s.name(), s.executor(), s.payload(), s.cronExpr(), s.runAt(), s.timezone(), s.priority(),
                s.maxAttempts(), s.timeoutSeconds(), s.catchUp(), key.apply(s.idempotencyKey()), s.queue(),
                key.apply(s.concurrencyKey()), s.maxConcurrent(), s.overlap(), key.apply(s.uniqueKey()), s.retry(),
                s.labels(), s.schedule(), key.apply(s.sequenceKey()), s.sequenceOnDead(), s.notices(), d, t);
    }
}
