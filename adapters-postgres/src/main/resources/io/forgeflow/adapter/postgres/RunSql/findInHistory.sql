-- findInHistory: find, for a run that moved to run_history (migration 0033), where worker_id is already the worker of
-- its last attempt. A lookup by id reads every history partition's id index (a run's finished_at is not known from
-- its id), so the repository asks here only when runs does not have the run.
SELECT r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, r.scheduled_for, r.started_at, r.finished_at,
       r.worker_id, r.lease_expires_at, r.output, r.error, r.executor, r.payload, r.timeout_seconds, r.cancel_requested,
       r.created_at, r.queue, r.traceparent, r.tracestate, r.trace_origin,
       r.retry_base_seconds, r.retry_max_seconds, r.labels, r.snoozes, r.tenant
FROM run_history r
WHERE r.id = CAST(:id AS uuid)
