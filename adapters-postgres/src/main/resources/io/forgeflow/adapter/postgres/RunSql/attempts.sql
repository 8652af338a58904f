-- attempts: a plain read of one run's attempt history (primary key prefix), no locks. A running attempt has no row
-- until it ends (forgeflow_end_attempts writes it once): the running run stands for it, as its claim left it.
SELECT run_id, attempt, worker_id, started_at, finished_at, outcome, error, retry_after_seconds
FROM run_attempts
WHERE run_id = CAST(:runId AS uuid)
UNION ALL
SELECT r.id, r.attempt, r.worker_id, coalesce(r.started_at, now()), NULL, NULL, NULL, NULL
FROM runs r
WHERE r.id = CAST(:runId AS uuid) AND r.status = 'running' AND r.worker_id IS NOT NULL AND r.attempt >= 1
  AND NOT EXISTS (SELECT 1 FROM run_attempts a WHERE a.run_id = r.id AND a.attempt = r.attempt)
ORDER BY attempt
