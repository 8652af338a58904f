-- lockOldest: the oldest notices, FOR UPDATE SKIP LOCKED: a second dispatcher (a leader that has just lost its lock)
-- takes other rows and never waits; the rows stay locked until the dispatching transaction ends.
SELECT id, event, CAST(job_id AS text) AS job_id, job_name, url, CAST(run_id AS text) AS run_id, attempt, error, note,
       created_at
FROM notices
ORDER BY id
LIMIT :limit
FOR UPDATE SKIP LOCKED
