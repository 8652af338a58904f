-- liveHolderOf: a plain read over runs_live_unique_key (no locks): the job whose pending or running run holds the key.
SELECT job_id
FROM runs
WHERE queue = :queue AND unique_key = :uniqueKey AND status IN ('pending', 'running')
LIMIT 1
