-- oldest: the pending notices, oldest first; a plain read, no locks.
SELECT id, event, CAST(job_id AS text) AS job_id, job_name, url, CAST(run_id AS text) AS run_id, attempt, error, note,
       created_at
FROM notices
ORDER BY id
LIMIT :limit
