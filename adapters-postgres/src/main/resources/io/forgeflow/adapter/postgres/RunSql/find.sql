-- find: a plain read by primary key, no locks. A run that is not running keeps the worker of its last attempt
-- (run_attempts, by its primary key): runs.worker_id is the lease holder only while it runs.
SELECT r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, r.scheduled_for, r.started_at, r.finished_at,
       coalesce(r.worker_id, (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = r.id AND a.attempt = r.attempt))
           AS worker_id,
       r.lease_expires_at, r.output, r.error, r.executor, r.payload, r.timeout_seconds, r.cancel_requested, r.created_at,
       r.queue, r.traceparent, r.tracestate, r.trace_origin,
       r.retry_base_seconds, r.retry_max_seconds, r.labels, r.snoozes, r.tenant
FROM runs r
WHERE r.id = CAST(:id AS uuid)
