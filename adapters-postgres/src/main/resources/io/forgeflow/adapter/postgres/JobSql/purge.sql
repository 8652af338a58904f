-- purge: removes a deleted job for good; its runs and their attempt rows go with it (ON DELETE CASCADE). Row locks on
-- the job and its runs until commit; a job that is not deleted is left alone.
DELETE FROM jobs
WHERE id = CAST(:id AS uuid) AND status = 'deleted'
RETURNING id
