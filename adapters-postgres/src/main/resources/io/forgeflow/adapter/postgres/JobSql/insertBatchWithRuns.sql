-- insertBatchWithRuns: several submissions in one statement (a group commit's batch, PostgresJobRepository): each
-- job and, only when the job was stored, its first run, exactly as insertWithRun does for one. The values come as one
-- array per column (element i of every array is submission i). Jobs are inserted in order of idempotency key, so two
-- batches that share keys wait for each other's keys in the same order and cannot deadlock; a job whose key is taken
-- (by an earlier job, or one earlier in this batch) is not stored and inserts no run. The stored jobs are returned.
WITH input AS (
    SELECT *
    FROM unnest(CAST(:ids AS uuid[]), CAST(:names AS text[]), CAST(:executors AS text[]), CAST(:payloads AS jsonb[]),
                CAST(:cronExprs AS text[]), CAST(:runAts AS timestamptz[]), CAST(:timezones AS text[]),
                CAST(:priorities AS smallint[]), CAST(:maxAttempts AS integer[]), CAST(:timeoutSeconds AS integer[]),
                CAST(:catchUps AS text[]), CAST(:idempotencyKeys AS text[]), CAST(:statuses AS text[]),
                CAST(:nextRunAts AS timestamptz[]), CAST(:createdAts AS timestamptz[]), CAST(:updatedAts AS timestamptz[]),
                CAST(:queues AS text[]), CAST(:concurrencyKeys AS text[]), CAST(:maxConcurrents AS integer[]),
                CAST(:overlaps AS text[]), CAST(:runIds AS uuid[]), CAST(:runPriorities AS smallint[]),
                CAST(:runScheduledFors AS timestamptz[]), CAST(:runMaxAttempts AS integer[]),
                CAST(:runCreatedAts AS timestamptz[]), CAST(:nows AS timestamptz[]), CAST(:traceparents AS text[]),
                CAST(:tracestates AS text[]),
                CAST(:retryBases AS integer[]), CAST(:retryMaxes AS integer[]), CAST(:labels AS jsonb[]),
                CAST(:tenants AS text[]))
        AS i (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds, catch_up,
              idempotency_key, status, next_run_at, created_at, updated_at, queue, concurrency_key, max_concurrent,
              overlap, run_id, run_priority, run_scheduled_for, run_max_attempts, run_created_at, now_, traceparent,
              tracestate, retry_base_seconds, retry_max_seconds, labels, tenant)
), job AS (
    INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds,
                      catch_up, idempotency_key, status, next_run_at, created_at, updated_at, queue, concurrency_key,
                      max_concurrent, overlap, traceparent, tracestate, retry_base_seconds, retry_max_seconds, labels,
                      tenant)
    SELECT id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds, catch_up,
           idempotency_key, status, next_run_at, coalesce(created_at, now_, now()),
           coalesce(updated_at, created_at, now_, now()), queue, concurrency_key, max_concurrent, overlap,
           traceparent, tracestate, retry_base_seconds, retry_max_seconds, coalesce(labels, '{}'::jsonb),
           coalesce(tenant, 'default')
    FROM input
    ORDER BY idempotency_key NULLS LAST, id
    ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING *
), run AS (
    INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at, queue, concurrency_key, max_concurrent, traceparent, tracestate,
                      trace_origin, retry_base_seconds, retry_max_seconds, labels, tenant)
    SELECT i.run_id, job.id, 'pending', i.run_priority, i.run_scheduled_for, 0, i.run_max_attempts, job.executor,
           job.payload, job.timeout_seconds, coalesce(i.run_created_at, i.now_, now()),
           job.queue, CASE WHEN job.max_concurrent IS NULL THEN NULL
                           ELSE coalesce(job.concurrency_key, 'job:' || job.id) END, job.max_concurrent,
           forgeflow_trace_child(job.traceparent), job.tracestate, job.traceparent, job.retry_base_seconds,
           job.retry_max_seconds, job.labels, job.tenant
    FROM job
    JOIN input i ON i.id = job.id
    RETURNING id
)
SELECT job.*
FROM job
