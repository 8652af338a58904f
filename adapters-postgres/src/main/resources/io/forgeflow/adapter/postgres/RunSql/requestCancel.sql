-- requestCancel: sets a flag on one running row (row lock for the update only); the worker sees it at its next
-- heartbeat or cancellation poll and acknowledges the run as cancelled.
UPDATE runs
SET cancel_requested = true
WHERE id = CAST(:id AS uuid) AND status = 'running'
RETURNING *
