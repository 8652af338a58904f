-- heartbeatHeld: one heartbeat of a worker holder, into forgeflow_heartbeat (db/functions): extends the holder's own
-- lease row and, without waiting on any run lock, the leases of the (run, attempt) pairs it names; returns every run
-- running under the holder, held or not (a claim whose reply was lost), and alive = false alone when the leader ended
-- the holder (it must stop everything and start a new incarnation).
SELECT id, CAST(:worker AS text) AS worker_id, attempt, cancel_requested, held, alive
FROM forgeflow_heartbeat(:worker, CAST(:ids AS uuid[]), CAST(:attempts AS integer[]), :leaseMillis,
                         CAST(:now AS timestamptz))
