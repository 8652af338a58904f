-- changeStatus: compare-and-set on the job row status (row lock until commit). A concurrent change of the same job
-- waits, then sees the new status and updates nothing.
UPDATE jobs
SET status      = :next,
    next_run_at = CAST(:nextRunAt AS timestamptz),
    updated_at  = coalesce(CAST(:now AS timestamptz), now())
WHERE id = CAST(:id AS uuid) AND status = :expected
RETURNING *
