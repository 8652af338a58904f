-- liveHolderForJob: a plain read (no locks): the job of a pending or running run holding this job's unique key.
SELECT h.job_id
FROM jobs j
JOIN runs h ON h.queue = j.queue AND h.unique_key = j.unique_key AND h.status IN ('pending', 'running')
WHERE j.id = CAST(:jobId AS uuid)
LIMIT 1
