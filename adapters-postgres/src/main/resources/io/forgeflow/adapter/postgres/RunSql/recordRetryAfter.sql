-- recordRetryAfter: in the acknowledgement's transaction, after forgeflow_acknowledge finished these attempt rows
-- (whose runs it locked), each gains the Retry-After its downstream asked for. Rows by primary key; no other locks.
UPDATE run_attempts a
SET retry_after_seconds = b.seconds
FROM unnest(CAST(:ids AS uuid[]), CAST(:attempts AS integer[]), CAST(:seconds AS integer[])) AS b (id, attempt, seconds)
WHERE a.run_id = b.id AND a.attempt = b.attempt AND a.retry_after_seconds IS NULL AND a.outcome IS NOT NULL
