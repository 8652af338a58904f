-- expiredLeases: the leader's read of the runs it may recover, into forgeflow_expired_leases (db/functions): it first
-- ends the lease rows of holders whose lease expired, then reads without locks the running runs whose lease expired
-- and whose holder is ended; the rescuer decides, and endAttempts applies each decision only if that still holds.
SELECT id, job_id, worker_id, attempt, max_attempts, cancel_requested, retry_base_seconds, retry_max_seconds
FROM forgeflow_expired_leases(:limit, CAST(:now AS timestamptz))
