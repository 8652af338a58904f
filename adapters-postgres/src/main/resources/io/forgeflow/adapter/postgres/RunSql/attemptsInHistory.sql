-- attemptsInHistory: attempts, for a run that moved to run_history (its attempts are in attempt_history); asked only
-- when runs does not have the run, as findInHistory.
SELECT run_id, attempt, worker_id, started_at, finished_at, outcome, error, retry_after_seconds
FROM attempt_history
WHERE run_id = CAST(:runId AS uuid)
ORDER BY attempt
