-- expiredLeases: the leader's read, first statement of its recovery transaction. FOR UPDATE SKIP LOCKED bounds the
-- work and passes over runs that their worker is acknowledging or heartbeating at this moment; the locks are held
-- until recoverLeases commits. Served by the partial index on lease_expires_at WHERE status = running.
SELECT id, worker_id, attempt, max_attempts, cancel_requested
FROM runs
WHERE status = 'running'
  AND lease_expires_at < coalesce(CAST(:now AS timestamptz), now())
ORDER BY lease_expires_at, id
LIMIT :limit
FOR UPDATE SKIP LOCKED
