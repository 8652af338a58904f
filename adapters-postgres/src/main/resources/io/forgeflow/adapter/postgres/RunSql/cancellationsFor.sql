-- cancellationsFor: a plain read, no locks; served by the partial index on worker_id WHERE status = running (the
-- holder's label), then the holder itself.
SELECT id
FROM runs
WHERE worker_id = forgeflow_worker_label(:worker) AND coalesce(worker_instance, worker_id) = :worker AND status = 'running'
  AND cancel_requested
