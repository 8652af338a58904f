-- lockLiveRuns: first statement of a job status change that affects runs. Locks the job's pending and running runs
-- in id order before the job row is touched: every writer locks runs before jobs (acknowledge, recovery) and runs in
-- id order (heartbeat), so none of them can deadlock with a pause or cancel. Waits for a claimer or worker holding
-- one of these rows.
SELECT id
FROM runs
WHERE job_id = CAST(:id AS uuid) AND status IN ('waiting', 'pending', 'running')
ORDER BY id
FOR UPDATE
