-- listForDisplay: list.sql for a response, bounded by the query itself: the output's last :tail characters (and
-- whether it was cut), no payload (an empty object stands in; list items never show it; a java run's stands in with
-- its handler alone, for the list's waiting_for). A plain read; no locks.
SELECT id, job_id, status, attempt, max_attempts, priority, scheduled_for, started_at, finished_at, worker_id,
       lease_expires_at, right(output, :tail) AS output, coalesce(char_length(output) > :tail, false) AS output_truncated,
       error, executor,
       CASE WHEN executor = 'java' THEN jsonb_build_object('handler', payload -> 'handler') ELSE '{}'::jsonb END AS payload,
       timeout_seconds, cancel_requested, created_at
FROM runs
WHERE (CAST(:jobId AS uuid) IS NULL OR job_id = CAST(:jobId AS uuid))
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:after AS uuid) IS NULL OR id < CAST(:after AS uuid))
ORDER BY id DESC
LIMIT :limit
