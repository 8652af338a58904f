-- liveHolderForRun: a plain read (no locks): the job of another pending or running run holding this run's unique key.
SELECT h.job_id
FROM runs me
JOIN runs h ON h.queue = me.queue AND h.unique_key = me.unique_key AND h.status IN ('pending', 'running')
               AND h.id <> me.id
WHERE me.id = CAST(:runId AS uuid)
LIMIT 1
