-- list: a plain read, newest first (UUIDv7 ids are time-ordered), keyset-paginated by the last id of the previous
-- page; no locks. Served by (job_id, id DESC), (status, id DESC) or the primary key, depending on the filters. A run
-- that is not running shows the worker of its last attempt (one primary-key probe of run_attempts per row returned).
SELECT r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, r.scheduled_for, r.started_at, r.finished_at,
       coalesce(r.worker_id, (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = r.id AND a.attempt = r.attempt))
           AS worker_id,
       r.lease_expires_at, r.output, r.error, r.executor, r.payload, r.timeout_seconds, r.cancel_requested, r.created_at,
       r.queue, r.traceparent, r.tracestate, r.trace_origin,
       r.retry_base_seconds, r.retry_max_seconds
FROM runs r
WHERE (CAST(:jobId AS uuid) IS NULL OR r.job_id = CAST(:jobId AS uuid))
  AND (CAST(:status AS text) IS NULL OR r.status = CAST(:status AS text))
  AND (CAST(:after AS uuid) IS NULL OR r.id < CAST(:after AS uuid))
ORDER BY r.id DESC
LIMIT :limit
