-- insertJobs: jobs of a workflow and their first runs in one statement, one array per column (element i of every
-- array is job i): a batch's jobs (a chunk of them) or an on_complete job. No idempotency keys: the batch has its own.
-- Runs are 'waiting' for jobs with parents; has_children marks the runs of parents in the batch. All of them are in
-- the batch's :tenant.
WITH input AS (
    SELECT *
    FROM unnest(CAST(:ids AS uuid[]), CAST(:names AS text[]), CAST(:executors AS text[]), CAST(:payloads AS jsonb[]),
                CAST(:runAts AS timestamptz[]), CAST(:timezones AS text[]), CAST(:priorities AS smallint[]),
                CAST(:maxAttempts AS integer[]), CAST(:timeoutSeconds AS integer[]), CAST(:catchUps AS text[]),
                CAST(:nextRunAts AS timestamptz[]), CAST(:queues AS text[]), CAST(:concurrencyKeys AS text[]),
                CAST(:maxConcurrents AS integer[]), CAST(:traceparents AS text[]), CAST(:tracestates AS text[]),
                CAST(:retryBases AS integer[]), CAST(:retryMaxes AS integer[]), CAST(:labels AS jsonb[]),
                CAST(:policies AS text[]), CAST(:runIds AS uuid[]), CAST(:runStatuses AS text[]),
                CAST(:hasChildren AS boolean[]), CAST(:notifies AS jsonb[]), CAST(:throttles AS jsonb[]))
        AS i (id, name, executor, payload, run_at, timezone, priority, max_attempts, timeout_seconds, catch_up,
              next_run_at, queue, concurrency_key, max_concurrent, traceparent, tracestate, retry_base_seconds,
              retry_max_seconds, labels, on_parent_failure, run_id, run_status, has_children, notify, throttle)
), job AS (
    INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds,
                      catch_up, idempotency_key, status, next_run_at, created_at, updated_at, queue, concurrency_key,
                      max_concurrent, overlap, traceparent, tracestate, retry_base_seconds, retry_max_seconds, labels,
                      on_parent_failure, batch_id, notify, throttle, tenant)
    SELECT id, name, executor, payload, NULL, run_at, timezone, priority, max_attempts, timeout_seconds, catch_up, NULL,
           'active', next_run_at, coalesce(CAST(:now AS timestamptz), now()), coalesce(CAST(:now AS timestamptz), now()),
           queue, concurrency_key, max_concurrent, 'allow', traceparent, tracestate, retry_base_seconds,
           retry_max_seconds, coalesce(labels, '{}'::jsonb), on_parent_failure, CAST(:batchId AS uuid), notify,
           throttle, CAST(:tenant AS text)
    FROM input
    RETURNING id
)
INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload, timeout_seconds,
                  created_at, queue, concurrency_key, max_concurrent, traceparent, tracestate, trace_origin,
                  retry_base_seconds, retry_max_seconds, labels, has_children, throttle_key, throttle_count,
                  throttle_per_seconds, tenant)
SELECT i.run_id, i.id, i.run_status, i.priority, i.next_run_at, 0, i.max_attempts, i.executor, i.payload,
       i.timeout_seconds, coalesce(CAST(:now AS timestamptz), now()), i.queue,
       CASE WHEN i.max_concurrent IS NULL THEN NULL ELSE coalesce(i.concurrency_key, 'job:' || i.id) END,
       i.max_concurrent, forgeflow_trace_child(i.traceparent), i.tracestate, i.traceparent, i.retry_base_seconds,
       i.retry_max_seconds, coalesce(i.labels, '{}'::jsonb), i.has_children, i.throttle ->> 'key',
       (i.throttle ->> 'count')::integer, (i.throttle ->> 'per_seconds')::integer, CAST(:tenant AS text)
FROM input i
JOIN job ON job.id = i.id
