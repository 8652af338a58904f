-- heartbeat: extends every lease one holder has, the holder's own lease row first; never waits on a run lock (SKIP
-- LOCKED: the holder's row keeps a run it could not extend). The partial index on worker_id WHERE status = running
-- finds the holder's label; worker_instance picks the holder among processes sharing it. Used by tests and tools; a
-- worker names what it holds (heartbeatHeld).
WITH mine AS (
    SELECT coalesce(array_agg(r.id ORDER BY r.id), '{}') AS ids,
           coalesce(array_agg(r.attempt ORDER BY r.id), '{}') AS attempts
    FROM runs r
    WHERE r.worker_id = forgeflow_worker_label(:worker) AND r.status = 'running'
      AND coalesce(r.worker_instance, r.worker_id) = :worker
)
SELECT h.id, CAST(:worker AS text) AS worker_id, h.attempt, h.cancel_requested
FROM mine, forgeflow_heartbeat(:worker, mine.ids, mine.attempts, :leaseMillis, CAST(:now AS timestamptz)) h
WHERE h.alive
