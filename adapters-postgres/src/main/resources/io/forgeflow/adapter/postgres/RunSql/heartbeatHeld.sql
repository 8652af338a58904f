-- heartbeatHeld: extends only the leases the worker names (run id and attempt), fenced like acknowledge. The mine CTE
-- locks every run running under the worker in id order (as heartbeat and acknowledge do, so they cannot deadlock);
-- the ones the worker did not name (a claim whose reply was lost) are returned unextended, with extended = false.
WITH held AS (
    SELECT *
    FROM unnest(CAST(:ids AS uuid[]), CAST(:attempts AS integer[])) AS h (id, attempt)
), mine AS MATERIALIZED (
    SELECT r.id, r.attempt, EXISTS (SELECT 1 FROM held h WHERE h.id = r.id AND h.attempt = r.attempt) AS held
    FROM runs r
    WHERE r.worker_id = :worker AND r.status = 'running'
    ORDER BY r.id
    FOR UPDATE OF r
), extended AS (
    UPDATE runs r
    SET lease_expires_at = coalesce(CAST(:now AS timestamptz), now()) + :leaseMillis * interval '1 millisecond'
    FROM mine
    WHERE r.id = mine.id AND mine.held
    RETURNING r.id, r.worker_id, r.attempt, r.cancel_requested
)
SELECT id, worker_id, attempt, cancel_requested, true AS extended
FROM extended
UNION ALL
SELECT id, CAST(:worker AS text), attempt, false, false
FROM mine
WHERE NOT held
