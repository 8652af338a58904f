package io.forgeflow.application.testkit;

import io.forgeflow.domain.job.JobDraft;

import java.time.Instant;
import java.util.Map;

/**
 * Builds {@link JobDraft}s from a named starting point: {@code aDraft()} is a valid run-now shell job with every
 * optional field left out (so the defaults of API.md apply); each {@code with...} sets one field.
 */
public final class JobDrafts {
    private String name = "nightly-report";
    private String executor = "shell";
    private Map<String, Object> payload = Map.of("command", "true");
    private String cronExpr;
    private Instant runAt;
    private String timezone;
    private Integer priority;
    private Integer maxAttempts;
    private Integer timeoutSeconds;
    private String catchUp;
    private String idempotencyKey;
    private String queue;
    private String concurrencyKey;
    private Integer maxConcurrent;
    private String overlap;

    private JobDrafts() {
    }

    /** A run-now job of executor {@code shell} with payload {@code {"command": "true"}}. */
    public static JobDrafts aDraft() {
        return new JobDrafts();
    }

    /** A recurring job on {@code cronExpr} (UTC unless {@link #inZone} says otherwise). */
    public static JobDrafts aRecurringDraft(String cronExpr) {
        return new JobDrafts().withCron(cronExpr);
    }

    public JobDrafts named(String value) {
        this.name = value;
        return this;
    }

    public JobDrafts withExecutor(String value) {
        this.executor = value;
        return this;
    }

    public JobDrafts withPayload(Map<String, Object> value) {
        this.payload = value;
        return this;
    }

    public JobDrafts withCron(String value) {
        this.cronExpr = value;
        return this;
    }

    public JobDrafts runAt(Instant value) {
        this.runAt = value;
        return this;
    }

    public JobDrafts inZone(String value) {
        this.timezone = value;
        return this;
    }

    public JobDrafts withPriority(Integer value) {
        this.priority = value;
        return this;
    }

    public JobDrafts withMaxAttempts(Integer value) {
        this.maxAttempts = value;
        return this;
    }

    public JobDrafts withTimeoutSeconds(Integer value) {
        this.timeoutSeconds = value;
        return this;
    }

    public JobDrafts catchingUp(String value) {
        this.catchUp = value;
        return this;
    }

    public JobDrafts withIdempotencyKey(String value) {
        this.idempotencyKey = value;
        return this;
    }

    public JobDrafts inQueue(String value) {
        this.queue = value;
        return this;
    }

    /** Runs sharing {@code key} run at most {@code max} at once, cluster-wide. */
    public JobDrafts withConcurrencyKey(String key, Integer max) {
        this.concurrencyKey = key;
        this.maxConcurrent = max;
        return this;
    }

    /** max_concurrent alone: at most {@code value} runs of this job at once. */
    public JobDrafts withMaxConcurrent(Integer value) {
        this.maxConcurrent = value;
        return this;
    }

    /** The overlap policy by its wire name ({@code allow}, {@code skip}, {@code queue_one}, {@code cancel_running}). */
    public JobDrafts overlapping(String value) {
        this.overlap = value;
        return this;
    }

    /** Schedule controls (start_at, end_at, max_runs, jitter_seconds, pause_after_failures); null parts: not given. */
    public JobDrafts withSchedule(io.forgeflow.domain.job.ScheduleControls value) {
        schedule = value;
        return this;
    }

    private io.forgeflow.domain.job.ScheduleControls schedule;

    /** Notices (notify.url, notify.on); null: none given. */
    public JobDrafts withNotify(io.forgeflow.domain.job.Notify value) {
        notify = value;
        return this;
    }

    private io.forgeflow.domain.job.Notify notify;

    public JobDraft build() {
        return new JobDraft(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap).withSchedule(schedule)
                .withNotify(notify);
    }
}
