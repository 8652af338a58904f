-- batch: a batch with its jobs counted by the status of their latest run (a job without a run counts as cancelled).
-- all_runs: a batch's runs move to history only once it completed (then its final counts are read), so this
-- finds them wherever they are.
SELECT b.id, b.name, b.tenant, b.idempotency_key, b.request_hash, b.created_at, b.completed_at, b.total, b.on_complete_job_id,
       b.succeeded AS final_succeeded, b.dead AS final_dead, b.cancelled AS final_cancelled,
       count(l.status) FILTER (WHERE l.status = 'waiting') AS waiting,
       count(l.status) FILTER (WHERE l.status = 'pending') AS pending,
       count(l.status) FILTER (WHERE l.status = 'running') AS running,
       count(l.status) FILTER (WHERE l.status = 'succeeded') AS succeeded,
       count(l.status) FILTER (WHERE l.status = 'dead') AS dead,
       count(j.id) FILTER (WHERE l.status IS NULL OR l.status = 'cancelled') AS cancelled
FROM batches b
LEFT JOIN jobs j ON j.batch_id = b.id
LEFT JOIN LATERAL (SELECT r.status FROM all_runs r WHERE r.job_id = j.id ORDER BY r.id DESC LIMIT 1) l ON true
WHERE b.id = CAST(:id AS uuid)
GROUP BY b.id
