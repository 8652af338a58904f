-- hasRunningRun: whether the job has a running run; read in a deletion's transaction after lockLiveRuns, so no run can
-- start or end in between.
SELECT EXISTS (SELECT 1 FROM runs WHERE job_id = CAST(:id AS uuid) AND status = 'running')
