-- listForDisplay: list.sql for a response, bounded by the query itself: the output's last :tail characters (and
-- whether it was cut), no payload (an empty object stands in; list items never show it; a java run's stands in with
-- its handler alone, for the list's waiting_for). A plain read; no locks. The worker of a run that is not running is
-- its last attempt's (a primary-key probe of run_attempts per row returned).
SELECT r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, r.scheduled_for, r.started_at, r.finished_at,
       coalesce(r.worker_id, (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = r.id AND a.attempt = r.attempt))
           AS worker_id,
       r.lease_expires_at, right(r.output, :tail) AS output,
       coalesce(char_length(r.output) > :tail, false) AS output_truncated,
       r.error, r.executor,
       CASE WHEN r.executor = 'java' THEN jsonb_build_object('handler', r.payload -> 'handler') ELSE '{}'::jsonb END
           AS payload,
       r.timeout_seconds, r.cancel_requested, r.created_at, r.retry_base_seconds, r.retry_max_seconds
FROM runs r
WHERE (CAST(:jobId AS uuid) IS NULL OR r.job_id = CAST(:jobId AS uuid))
  AND (CAST(:status AS text) IS NULL OR r.status = CAST(:status AS text))
  AND (CAST(:after AS uuid) IS NULL OR r.id < CAST(:after AS uuid))
ORDER BY r.id DESC
LIMIT :limit
