-- remove: deletes this node's own row (clean shutdown); row lock on that row only.
DELETE FROM nodes
WHERE worker_id = :workerId
