-- cancelPending: compare-and-set pending -> cancelled on one row (a claimer that locked the row first wins, and
-- then this updates nothing). A one-off job whose run ended becomes completed, locking its row after the run.
WITH cancelled AS (
    UPDATE runs
    SET status = 'cancelled', finished_at = coalesce(CAST(:now AS timestamptz), now()), error = :reason
    WHERE id = CAST(:id AS uuid) AND status = 'pending'
    RETURNING *
), completed AS (
    UPDATE jobs j
    SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST(:now AS timestamptz), now())
    WHERE j.id IN (SELECT job_id FROM cancelled)
      AND j.status IN ('active', 'paused')
      AND j.cron_expr IS NULL
)
SELECT *
FROM cancelled
