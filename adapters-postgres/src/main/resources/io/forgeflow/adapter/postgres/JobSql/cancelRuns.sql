-- cancelRuns: last statement of a job status change; its rows were locked by lockLiveRuns (a run inserted since then
-- is locked here). Pending and waiting runs become cancelled; with alsoRunning, the workers of running runs are asked to stop.
-- Returns the changed rows (for the node's run events, published after the commit).
UPDATE runs
SET status           = CASE WHEN status IN ('pending', 'waiting') THEN 'cancelled' ELSE status END,
    finished_at      = CASE WHEN status IN ('pending', 'waiting') THEN coalesce(CAST(:now AS timestamptz), now()) ELSE finished_at END,
    error            = CASE WHEN status IN ('pending', 'waiting') THEN :reason ELSE error END,
    cancel_requested = (status = 'running')
WHERE job_id = CAST(:id AS uuid)
  AND (status IN ('pending', 'waiting') OR (status = 'running' AND :alsoRunning))
RETURNING *
