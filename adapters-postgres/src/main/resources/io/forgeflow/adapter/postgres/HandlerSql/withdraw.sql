-- withdraw: deletes this worker's handler rows (row locks on them only).
DELETE FROM handlers WHERE worker_id = :workerId
