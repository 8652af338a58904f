package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.run.Run;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The statements on {@code jobs} (and the run effects of job controls), one file each under {@code JobSql/}. Ids are
 * bound as text and cast to {@code uuid} in SQL; callers only pass well-formed ids. {@code :now} is null in production.
 *
 * <p>{@code insertWithRun.sql}, the submission of a one-off job, is run on plain JDBC by {@link PostgresJobRepository}
 * ({@link SqlFile}, {@link JdbcStatements}) rather than through this SqlObject.
 */
@UseClasspathSqlLocator
interface JobSql {

    /** Empty when the idempotency key is taken (nothing was stored). */
    @SqlQuery
    Optional<Job> insert(@Bind("id") String id, @Bind("name") String name, @Bind("executor") String executor,
                         @Bind("payload") Map<String, Object> payload, @Bind("cronExpr") String cronExpr,
                         @Bind("runAt") Instant runAt, @Bind("timezone") String timezone,
                         @Bind("priority") int priority, @Bind("maxAttempts") int maxAttempts,
                         @Bind("timeoutSeconds") int timeoutSeconds, @Bind("catchUp") String catchUp,
                         @Bind("idempotencyKey") String idempotencyKey, @Bind("status") String status,
                         @Bind("nextRunAt") Instant nextRunAt, @Bind("createdAt") Instant createdAt,
                         @Bind("updatedAt") Instant updatedAt, @Bind("queue") String queue,
                         @Bind("concurrencyKey") String concurrencyKey, @Bind("maxConcurrent") Integer maxConcurrent,
                         @Bind("overlap") String overlap, @Bind("uniqueKey") String uniqueKey,
                         @Bind("now") Instant now, @Bind("traceparent") String traceparent,
                         @Bind("tracestate") String tracestate,
                         @Bind("retryBaseSeconds") Integer retryBaseSeconds,
                         @Bind("retryMaxSeconds") Integer retryMaxSeconds, @Bind("labels") String labels,
                         @Bind("startAt") Instant startAt, @Bind("endAt") Instant endAt,
                         @Bind("maxRuns") Integer maxRuns, @Bind("jitterSeconds") int jitterSeconds,
                         @Bind("pauseAfterFailures") Integer pauseAfterFailures,
                         @Bind("sequenceKey") String sequenceKey, @Bind("sequenceOnDead") String sequenceOnDead,
                         @Bind("notify") String notify, @Bind("debounce") String debounce,
                         @Bind("throttle") String throttle, @Bind("tenant") String tenant);

    /** {@code job} with its keys already in stored form ({@link StoredKeys#stored}). */
    default Optional<Job> insert(Job job, Instant now) {
        JobSpec spec = job.spec();
        return insert(job.id(), spec.name(), spec.executor(), spec.payload(), spec.cronExpr(), spec.runAt(),
                spec.timezone(), spec.priority(), spec.maxAttempts(), spec.timeoutSeconds(), spec.catchUp().wireName(),
                spec.idempotencyKey(), job.status().wireName(), job.nextRunAt(), job.createdAt(), job.updatedAt(),
                spec.queue(), spec.concurrencyKey(), spec.maxConcurrent(), spec.overlap().wireName(), spec.uniqueKey(),
                now, job.trace() == null ? null : job.trace().traceparent(),
                job.trace() == null ? null : job.trace().tracestate(), retryBase(spec), retryMax(spec),
                PayloadJson.write(spec.labels()), spec.schedule().startAt(), spec.schedule().endAt(),
                spec.schedule().maxRuns(), spec.schedule().jitter(), spec.schedule().pauseAfterFailures(),
                spec.sequenceKey(), spec.sequenceOnDead(), notifyJson(spec), debounceJson(spec), throttleJson(spec),
                job.tenant());
    }

    /** The {@code debounce} column: {@code {"key", "period_seconds", "max_wait_seconds", "edge"}}, null for none. */
    static String debounceJson(JobSpec spec) {
        if (spec.debounce() == null) {
            return null;
        }
        Map<String, Object> d = new java.util.LinkedHashMap<>();
        d.put("key", spec.debounce().key());
        d.put("period_seconds", spec.debounce().periodSeconds());
        if (spec.debounce().maxWaitSeconds() != null) {
            d.put("max_wait_seconds", spec.debounce().maxWaitSeconds());
        }
        d.put("edge", spec.debounce().edge());
        return PayloadJson.write(d);
    }

    /** The {@code throttle} column: {@code {"key", "count", "per_seconds"}}, null for none. */
    static String throttleJson(JobSpec spec) {
        if (spec.throttle() == null) {
            return null;
        }
        Map<String, Object> t = new java.util.LinkedHashMap<>();
        t.put("key", spec.throttle().key());
        t.put("count", spec.throttle().count());
        t.put("per_seconds", spec.throttle().perSeconds());
        return PayloadJson.write(t);
    }

    /** The {@code notify} column: {@code {"url": ..., "on": [...]}} as JSON text, null for none. */
    static String notifyJson(JobSpec spec) {
        if (spec.notices() == null) {
            return null;
        }
        Map<String, Object> notify = new java.util.LinkedHashMap<>();
        notify.put("url", spec.notices().url());
        notify.put("on", spec.notices().on());
        return PayloadJson.write(notify);
    }

    static Integer retryBase(JobSpec spec) {
        return spec.retry() == null ? null : spec.retry().baseSeconds();
    }

    static Integer retryMax(JobSpec spec) {
        return spec.retry() == null ? null : spec.retry().maxSeconds();
    }

    /** GET /api/jobs with its filters (null: none); run it with custom plans (FilteredLists). */
    @SqlQuery
    List<Job> listMatching(@Bind("status") String status, @Bind("queue") String queue, @Bind("labels") String labels,
                           @Bind("namePrefix") String namePrefix, @Bind("tenant") String tenant,
                           @Bind("after") String afterId, @Bind("limit") int limit);

    @SqlQuery
    Optional<Job> findByIdempotencyKey(@Bind("idempotencyKey") String idempotencyKey);

    @SqlQuery
    Optional<Job> find(@Bind("id") String id);

    /** The job whose pending or running run holds {@code uniqueKey} in {@code queue}, if any. */
    @SqlQuery
    Optional<String> liveHolderOf(@Bind("queue") String queue, @Bind("uniqueKey") String uniqueKey);

    /** The job whose live run holds the unique key that run {@code runId} carries (another run than it), if any. */
    @SqlQuery
    Optional<String> liveHolderForRun(@Bind("runId") String runId);

    /** The job whose live run holds the unique key of job {@code jobId}, if any. */
    @SqlQuery
    Optional<String> liveHolderForJob(@Bind("jobId") String jobId);

    /** GET /api/jobs for a response, with its filters, payload cut and byte budget (FilteredLists). */
    @SqlQuery
    List<Rows.BudgetedJob> listForDisplayMatching(@Bind("status") String status, @Bind("queue") String queue,
                                                  @Bind("labels") String labels,
                                                  @Bind("namePrefix") String namePrefix,
                                                  @Bind("tenant") String tenant,
                                                  @Bind("after") String afterId, @Bind("limit") int limit,
                                                  @Bind("payloadLimit") int payloadLimit,
                                                  @Bind("overhead") int itemOverhead, @Bind("budget") long budget);

    /** The definition change of a PATCH, compare-and-set on updated_at; empty when the job changed since it was read. */
    @SqlQuery
    Optional<Job> update(@Bind("id") String id, @Bind("expectedUpdatedAt") Instant expectedUpdatedAt,
                         @Bind("name") String name, @Bind("payload") Map<String, Object> payload,
                         @Bind("cronExpr") String cronExpr, @Bind("runAt") Instant runAt,
                         @Bind("timezone") String timezone, @Bind("priority") int priority,
                         @Bind("maxAttempts") int maxAttempts, @Bind("timeoutSeconds") int timeoutSeconds,
                         @Bind("catchUp") String catchUp, @Bind("queue") String queue,
                         @Bind("concurrencyKey") String concurrencyKey, @Bind("maxConcurrent") Integer maxConcurrent,
                         @Bind("overlap") String overlap, @Bind("retryBaseSeconds") Integer retryBaseSeconds,
                         @Bind("retryMaxSeconds") Integer retryMaxSeconds, @Bind("nextRunAt") Instant nextRunAt,
                         @Bind("labels") String labels, @Bind("startAt") Instant startAt, @Bind("endAt") Instant endAt,
                         @Bind("maxRuns") Integer maxRuns, @Bind("jitterSeconds") int jitterSeconds,
                         @Bind("pauseAfterFailures") Integer pauseAfterFailures, @Bind("notify") String notify,
                         @Bind("throttle") String throttle, @Bind("now") Instant now);

    default Optional<Job> update(String id, Instant expectedUpdatedAt, JobSpec spec, Instant nextRunAt, Instant now) {
        return update(id, expectedUpdatedAt, spec.name(), spec.payload(), spec.cronExpr(), spec.runAt(),
                spec.timezone(), spec.priority(), spec.maxAttempts(), spec.timeoutSeconds(), spec.catchUp().wireName(),
                spec.queue(), spec.concurrencyKey(), spec.maxConcurrent(), spec.overlap().wireName(), retryBase(spec),
                retryMax(spec), nextRunAt, PayloadJson.write(spec.labels()), spec.schedule().startAt(),
                spec.schedule().endAt(), spec.schedule().maxRuns(), spec.schedule().jitter(),
                spec.schedule().pauseAfterFailures(), notifyJson(spec), throttleJson(spec), now);
    }

    /** The pending runs a definition change reached (call after update, in its transaction). */
    @SqlQuery
    List<String> updatePendingRuns(@Bind("id") String jobId, @Bind("follow") boolean follow,
                                   @Bind("rescheduleTo") Instant rescheduleTo);

    @SqlQuery
    boolean hasRunningRun(@Bind("id") String jobId);

    /** The id of the deleted job removed, if one was. */
    @SqlQuery
    Optional<String> purge(@Bind("id") String jobId);

    /** Locks the job's pending and running runs (call inside the changeStatus transaction). */
    @SqlQuery
    List<String> lockLiveRuns(@Bind("id") String jobId);

    @SqlQuery
    Optional<Job> changeStatus(@Bind("id") String id, @Bind("expected") String expected, @Bind("next") String next,
                               @Bind("nextRunAt") Instant nextRunAt, @Bind("note") String note, @Bind("by") String by,
                               @Bind("now") Instant now);

    /** A status change without a pause note. */
    default Optional<Job> changeStatus(String id, String expected, String next, Instant nextRunAt, Instant now) {
        return changeStatus(id, expected, next, nextRunAt, null, null, now);
    }

    /** The runs it changed: pending ones now cancelled, running ones (still running) asked to stop. */
    @SqlQuery
    List<Run> cancelRuns(@Bind("id") String jobId, @Bind("alsoRunning") boolean alsoRunning, @Bind("reason") String reason,
                   @Bind("now") Instant now);

    @SqlQuery
    Instant databaseNow(@Bind("now") Instant now);

    /** Milliseconds until the earliest next_run_at of an active recurring job; null when there is none. */
    @SqlQuery
    Double nextTickIn(@Bind("now") Instant now);

    @SqlQuery
    List<Job> due(@Bind("asOf") Instant asOf, @Bind("limit") int limit);

    /** The job's overlap policy (jobs never change it, so it can be read before the statement that uses it). */
    @SqlQuery
    Optional<String> overlapOf(@Bind("id") String jobId);

    /** The action taken ('fire' or 'skip', '+replaced' when cancel_running stopped older runs); empty when not advanced. */
    @SqlQuery
    Optional<String> fireTick(@Bind("jobId") String jobId, @Bind("expectedNextRunAt") Instant expectedNextRunAt,
                              @Bind("newNextRunAt") Instant newNextRunAt, @Bind("runId") String runId,
                              @Bind("priority") int priority, @Bind("scheduledFor") Instant scheduledFor,
                              @Bind("maxAttempts") int maxAttempts, @Bind("executor") String executor,
                              @Bind("payload") Map<String, Object> payload, @Bind("timeoutSeconds") int timeoutSeconds,
                              @Bind("createdAt") Instant createdAt, @Bind("overlap") String overlap,
                              @Bind("expectedUpdatedAt") Instant expectedUpdatedAt, @Bind("now") Instant now);

    /** @param expectedUpdatedAt the definition the tick was computed from; null: guard on next_run_at alone */
    default Optional<String> fireTick(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run,
                                      String overlap, Instant expectedUpdatedAt, Instant now) {
        if (run == null) {
            return fireTick(jobId, expectedNextRunAt, newNextRunAt, null, 1, expectedNextRunAt, 1, "", Map.of(), 1,
                    null, "allow", expectedUpdatedAt, now);
        }
        return fireTick(jobId, expectedNextRunAt, newNextRunAt, run.id(), run.priority(), run.scheduledFor(),
                run.maxAttempts(), run.executor(), run.payload(), run.timeoutSeconds(), run.createdAt(), overlap,
                expectedUpdatedAt, now);
    }

    /** The ids of the runs a backfill created, then {@code backfill:<id>} when it was recorded (backfill.sql). */
    @SqlQuery
    List<String> backfill(@Bind("jobId") String jobId, @Bind("backfillId") String backfillId,
                          @Bind("runIds") String[] runIds, @Bind("ticks") String[] ticks,
                          @Bind("oneAtATime") boolean oneAtATime, @Bind("from") Instant from, @Bind("to") Instant to,
                          @Bind("overlap") String overlap, @Bind("now") Instant now);

    /** A backfill's rows, one per status of its runs (backfillProgress.sql). */
    @SqlQuery
    List<Rows.BackfillRow> backfillProgress(@Bind("jobId") String jobId, @Bind("id") String backfillId);
}
