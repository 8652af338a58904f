-- insertWithRun: a submission in one statement, so in one round trip and one commit: the job and, only when the job
-- was stored, its first run. ON CONFLICT (idempotency_key) WHERE ... DO NOTHING lets the keyed jobs' unique index
-- decide between concurrent submissions with one key (a second inserter waits for the first to commit, then stores
-- nothing); a job that was not stored inserts no run. No locks beyond the new rows.
WITH job AS (
    INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds,
                      catch_up, idempotency_key, status, next_run_at, created_at, updated_at, queue, concurrency_key,
                      max_concurrent, overlap, traceparent, tracestate, retry_base_seconds, retry_max_seconds, labels,
                      tenant)
    VALUES (CAST(:id AS uuid), :name, :executor, :payload, :cronExpr, :runAt, :timezone, :priority, :maxAttempts,
            :timeoutSeconds, :catchUp, :idempotencyKey, :status, :nextRunAt,
            coalesce(CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()),
            coalesce(CAST(:updatedAt AS timestamptz), CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()),
            :queue, :concurrencyKey, :maxConcurrent, :overlap, :traceparent, :tracestate, :retryBaseSeconds,
            :retryMaxSeconds, CAST(:labels AS jsonb), :tenant)
    ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING *
), run AS (
    INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at, queue, concurrency_key, max_concurrent, traceparent, tracestate,
                      trace_origin, retry_base_seconds, retry_max_seconds, labels, tenant)
    SELECT CAST(:runId AS uuid), job.id, 'pending', :runPriority, :runScheduledFor, 0, :runMaxAttempts, job.executor,
           job.payload, job.timeout_seconds,
           coalesce(CAST(:runCreatedAt AS timestamptz), CAST(:now AS timestamptz), now()),
           job.queue, CASE WHEN job.max_concurrent IS NULL THEN NULL
                           ELSE coalesce(job.concurrency_key, 'job:' || job.id) END, job.max_concurrent,
           forgeflow_trace_child(job.traceparent), job.tracestate, job.traceparent, job.retry_base_seconds,
           job.retry_max_seconds, job.labels, job.tenant
    FROM job
    RETURNING id
)
SELECT job.*
FROM job
