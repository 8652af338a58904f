-- expiredLeases: the leader's read of running runs whose lease expired, oldest expiry first. A plain read, no locks:
-- the rescuer decides, and endAttempts applies each decision only if the run is still running under the same worker and
-- attempt with its lease still expired. Served by the partial index on lease_expires_at WHERE status = running.
SELECT id, job_id, worker_id, attempt, max_attempts, cancel_requested, retry_base_seconds, retry_max_seconds
FROM runs
WHERE status = 'running'
  AND lease_expires_at < coalesce(CAST(:now AS timestamptz), now())
ORDER BY lease_expires_at, id
LIMIT :limit
