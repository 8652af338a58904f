package io.forgeflow.adapter.postgres.testing;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * Test jobs with named starting points: {@code aJob()} is an active one-off job of executor {@code noop};
 * {@code aJob().recurring(cron, next)} a recurring one. {@link #build()} checks nothing the domain records
 * do not.
 */
public final class TestJobs {
    private String id;
    private String name = "test-job";
    private String executor = "noop";
    private Map<String, Object> payload = Map.of();
    private String cronExpr;
    private Instant runAt;
    private String timezone = "UTC";
    private int priority = 5;
    private int maxAttempts = 3;
    private int timeoutSeconds = 300;
    private CatchUp catchUp = CatchUp.SKIP;
    private String idempotencyKey;
    private JobStatus status = JobStatus.ACTIVE;
    private Instant nextRunAt;
    private Instant createdAt;
    private String queue = "default";
    private String concurrencyKey;
    private Integer maxConcurrent;
    private io.forgeflow.domain.job.Overlap overlap = io.forgeflow.domain.job.Overlap.ALLOW;

    private TestJobs() {
    }

    /** An active one-off job (no cron, no run_at) of executor {@code noop}, priority 5, 3 attempts. */
    public static TestJobs aJob() {
        return new TestJobs();
    }

    public TestJobs withId(String value) {
        this.id = value;
        return this;
    }

    public TestJobs named(String value) {
        this.name = value;
        return this;
    }

    public TestJobs withExecutor(String value) {
        this.executor = value;
        return this;
    }

    public TestJobs withPayload(Map<String, Object> value) {
        this.payload = value;
        return this;
    }

    /** A recurring job whose next tick is {@code next}. */
    public TestJobs recurring(String cron, Instant next) {
        this.cronExpr = cron;
        this.nextRunAt = next;
        this.runAt = null;
        return this;
    }

    public TestJobs runAt(Instant value) {
        this.runAt = value;
        return this;
    }

    public TestJobs withTimezone(String value) {
        this.timezone = value;
        return this;
    }

    public TestJobs withPriority(int value) {
        this.priority = value;
        return this;
    }

    public TestJobs withMaxAttempts(int value) {
        this.maxAttempts = value;
        return this;
    }

    public TestJobs withTimeoutSeconds(int value) {
        this.timeoutSeconds = value;
        return this;
    }

    public TestJobs catchingUp(CatchUp value) {
        this.catchUp = value;
        return this;
    }

    public TestJobs withIdempotencyKey(String value) {
        this.idempotencyKey = value;
        return this;
    }

    public TestJobs withStatus(JobStatus value) {
        this.status = value;
        return this;
    }

    public TestJobs paused() {
        return withStatus(JobStatus.PAUSED);
    }

    public TestJobs withNextRunAt(Instant value) {
        this.nextRunAt = value;
        return this;
    }

    /** Also decides the id's time component (ids are UUIDv7), unless an id was given. */
    public TestJobs createdAt(Instant value) {
        this.createdAt = value;
        return this;
    }

    public TestJobs inQueue(String value) {
        this.queue = value;
        return this;
    }

    /** At most {@code max} runs of all jobs sharing {@code key} at once; a null key limits this job's own runs. */
    public TestJobs limitedBy(String key, int max) {
        this.concurrencyKey = key;
        this.maxConcurrent = max;
        return this;
    }

    public TestJobs overlapping(io.forgeflow.domain.job.Overlap value) {
        this.overlap = value;
        return this;
    }

    public Job build() {
        // PostgreSQL keeps microseconds
        Instant created = (createdAt == null ? Instant.now() : createdAt).truncatedTo(ChronoUnit.MICROS);
        JobSpec spec = new JobSpec(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts,
                timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap);
        return new Job(id == null ? Ids.newId(created) : id, spec, status, nextRunAt, created, created);
    }
}
