-- attempts: a plain read of one run's attempt history (primary key prefix), no locks.
SELECT *
FROM run_attempts
WHERE run_id = CAST(:runId AS uuid)
ORDER BY attempt
