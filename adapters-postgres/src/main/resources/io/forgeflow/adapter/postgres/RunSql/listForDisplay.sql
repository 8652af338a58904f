-- listForDisplay: list.sql for a response, bounded by the query itself: the output's last :tail characters (and
-- whether it was cut), no payload (an empty object stands in; list items never show it). A plain read; no locks.
SELECT id, job_id, status, attempt, max_attempts, priority, scheduled_for, started_at, finished_at, worker_id,
       lease_expires_at, right(output, :tail) AS output, coalesce(char_length(output) > :tail, false) AS output_truncated,
       error, executor, '{}'::jsonb AS payload, timeout_seconds, cancel_requested, created_at
FROM runs
WHERE (CAST(:jobId AS uuid) IS NULL OR job_id = CAST(:jobId AS uuid))
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:after AS uuid) IS NULL OR id < CAST(:after AS uuid))
ORDER BY id DESC
LIMIT :limit
