-- children: the first :limit children of a job (by id, so oldest first), with their latest run's status.
-- all_runs, right wherever a run is; the runs of workflow jobs stay in runs (forgeflow_move_history leaves them).
SELECT j.id, j.name, j.status, l.status AS run_status
FROM job_dependencies d
JOIN jobs j ON j.id = d.job_id
LEFT JOIN LATERAL (SELECT r.status FROM all_runs r WHERE r.job_id = j.id ORDER BY r.id DESC LIMIT 1) l ON true
WHERE d.parent_id = CAST(:id AS uuid)
ORDER BY d.job_id
LIMIT :limit
