-- release: a draining worker gives runs back. Fenced like acknowledge, locking the runs in id order. Each released
-- run is due now, and its max_attempts grows by one so that the released attempt does not count against the budget.
WITH batch AS (
    SELECT *
    FROM unnest(CAST(:ids AS uuid[]), CAST(:workers AS text[]), CAST(:attempts AS integer[]))
         AS b (id, worker_id, attempt)
), held AS MATERIALIZED (
    -- one primary-key lookup per batch row, in id order; the rows it keeps carry their batch values, so no later step
    -- joins the batch again (a join the planner chose itself for a generic plan once compared every batch row with
    -- every other: quadratic in the batch size, a second per 1,000 acknowledgements). The fence is tested inside a
    -- CASE on purpose: written as plain conditions, status = 'running' let the planner serve each lookup from a
    -- partial index WHERE status = 'running' (runs_running_queue_idx, which looks tiny to it) and scan every running
    -- run of the queue per batch row, quadratic again once acknowledgements lag behind the claims.
    SELECT b.*
    FROM (SELECT * FROM batch ORDER BY id) b
    CROSS JOIN LATERAL (
        SELECT id
        FROM runs
        WHERE id = b.id
          AND CASE WHEN status = 'running' THEN worker_id = b.worker_id AND attempt = b.attempt ELSE false END
        FOR UPDATE) r
), released AS (
    UPDATE runs r
    SET status           = 'pending',
        worker_id        = NULL,
        lease_expires_at = NULL,
        cancel_requested = false,
        scheduled_for    = coalesce(CAST(:now AS timestamptz), now()),
        finished_at      = NULL,
        max_attempts     = r.max_attempts + 1
    FROM held b
    WHERE r.id = b.id
      AND CASE WHEN r.status = 'running' THEN r.worker_id = b.worker_id AND r.attempt = b.attempt ELSE false END
    RETURNING r.id, r.job_id, r.status, r.started_at, b.worker_id, b.attempt
), finished AS (
    INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
    SELECT id, attempt, worker_id, coalesce(started_at, CAST(:now AS timestamptz), now()),
           coalesce(CAST(:now AS timestamptz), now()), 'released', 'released by draining worker ' || worker_id
    FROM released
    ON CONFLICT (run_id, attempt) DO UPDATE
        SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
        WHERE a.outcome IS NULL
)
SELECT id, worker_id, attempt, job_id, status
FROM released
