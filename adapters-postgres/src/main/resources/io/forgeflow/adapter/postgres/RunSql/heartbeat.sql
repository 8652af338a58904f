-- heartbeat: extends every lease one worker holds, in one statement. The mine CTE locks those runs in id order (as
-- acknowledge does) so that a heartbeat and a concurrent multi-row write cannot deadlock; the partial index on
-- worker_id WHERE status = running finds them. Runs whose lease the leader already recovered are no longer
-- running under this worker and are not touched.
WITH mine AS MATERIALIZED (
    SELECT id
    FROM runs
    WHERE worker_id = :worker AND status = 'running'
    ORDER BY id
    FOR UPDATE
)
UPDATE runs r
SET lease_expires_at = coalesce(CAST(:now AS timestamptz), now()) + :leaseMillis * interval '1 millisecond'
FROM mine
WHERE r.id = mine.id
RETURNING r.id, r.worker_id, r.attempt, r.cancel_requested
