-- claim: FOR UPDATE SKIP LOCKED lets concurrent claimers take disjoint sets of due runs without waiting for each
-- other; the pending -> running change of each row is the mutual exclusion. The MATERIALIZED CTE evaluates the
-- LIMIT once, not once per updated row. The started attempt rows are written by the same statement (one round trip).
-- The pending partial index on (priority, scheduled_for, id) serves the ORDER BY.
WITH due AS MATERIALIZED (
    SELECT id
    FROM runs
    WHERE status = 'pending'
      AND scheduled_for <= coalesce(CAST(:now AS timestamptz), now())
      AND executor = ANY (CAST(:executors AS text[]))
    ORDER BY priority, scheduled_for, id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE runs r
    SET status           = 'running',
        worker_id        = :worker,
        attempt          = r.attempt + 1,
        started_at       = coalesce(CAST(:now AS timestamptz), now()),
        finished_at      = NULL,
        lease_expires_at = coalesce(CAST(:now AS timestamptz), now()) + :leaseMillis * interval '1 millisecond',
        cancel_requested = false
    FROM due
    WHERE r.id = due.id
    RETURNING r.*
), started AS (
    -- attempt numbers are never reused, so a conflict means a damaged row: keep the old history, keep claiming
    INSERT INTO run_attempts (run_id, attempt, worker_id, started_at)
    SELECT id, attempt, worker_id, started_at
    FROM claimed
    ON CONFLICT (run_id, attempt) DO NOTHING
)
SELECT *
FROM claimed
ORDER BY priority, scheduled_for, id
