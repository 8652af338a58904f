-- cancellationsFor: a plain read, no locks; served by the partial index on worker_id WHERE status = running.
SELECT id
FROM runs
WHERE worker_id = :worker AND status = 'running' AND cancel_requested
