-- purge: removes a deleted job for good; its runs and their attempt rows go with it (ON DELETE CASCADE). Row locks on
-- the job and its runs until commit; a job that is not deleted is left alone.
WITH gone AS (
    DELETE FROM jobs
    WHERE id = CAST(:id AS uuid) AND status = 'deleted'
    RETURNING id
), history AS (
    -- its finished runs that moved to history (no foreign key there), with their attempts
    DELETE FROM run_history h USING gone g WHERE h.job_id = g.id
    RETURNING h.id, h.finished_at
), history_attempts AS (
    DELETE FROM attempt_history a USING history h WHERE a.run_id = h.id AND a.run_finished_at = h.finished_at
)
SELECT id FROM gone
