-- cancelPending: compare-and-set pending (or waiting) -> cancelled on one row (a claimer that locked the row first wins, and
-- then this updates nothing). A one-off job whose run ended becomes completed, locking its row after the run. The
-- run is returned with the worker of its last attempt, if it had one.
WITH cancelled AS (
    UPDATE runs
    SET status = 'cancelled', finished_at = coalesce(CAST(:now AS timestamptz), now()), error = :reason
    WHERE id = CAST(:id AS uuid) AND status IN ('pending', 'waiting')
    RETURNING *
), completed AS (
    UPDATE jobs j
    SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST(:now AS timestamptz), now())
    WHERE j.id IN (SELECT job_id FROM cancelled)
      AND j.status IN ('active', 'paused')
      AND j.cron_expr IS NULL
)
SELECT c.id, c.job_id, c.status, c.attempt, c.max_attempts, c.priority, c.scheduled_for, c.started_at,
       c.finished_at,
       (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = c.id AND a.attempt = c.attempt) AS worker_id,
       c.lease_expires_at, c.output, c.error, c.executor, c.payload, c.timeout_seconds, c.cancel_requested, c.created_at,
       c.retry_base_seconds, c.retry_max_seconds
FROM cancelled c
