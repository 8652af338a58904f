-- deleteJobs: second statement of a retention batch on jobs; the rows were locked by lockFinishedJobs. A statement of
-- its own has a fresh snapshot, so a run that was inserted and committed before the lock was taken is seen here, and
-- its job is kept.
DELETE FROM jobs j
WHERE j.id = ANY (CAST(:ids AS uuid[]))
  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id)
  AND NOT EXISTS (SELECT 1 FROM run_history h WHERE h.job_id = j.id)
