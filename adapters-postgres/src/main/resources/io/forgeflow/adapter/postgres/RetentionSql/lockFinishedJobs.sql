-- lockFinishedJobs: first statement of a retention batch on jobs. Locks (FOR UPDATE SKIP LOCKED: never waits) jobs that
-- can never run again, unchanged for the retention period, that have no runs left. Holding these locks keeps new
-- runs out (inserting a run takes a key-share lock on its job), until deleteJobs commits.
SELECT j.id
FROM jobs j
WHERE j.status IN ('completed', 'cancelled', 'deleted')
  AND j.updated_at < coalesce(CAST(:now AS timestamptz), now()) - :olderThanMillis * interval '1 millisecond'
  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id)
  AND NOT EXISTS (SELECT 1 FROM run_history h WHERE h.job_id = j.id)
LIMIT :limit
FOR UPDATE OF j SKIP LOCKED
