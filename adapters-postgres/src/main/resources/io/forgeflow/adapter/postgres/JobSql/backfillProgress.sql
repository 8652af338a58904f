-- backfillProgress: a backfill of the job with its runs counted by status (one row per status; a backfill without
-- runs gives one row whose status is null). Served by backfills' primary key and runs_backfill_idx.
SELECT b.id, b.job_id, b.from_tick, b.to_tick, b.overlap, b.ticks, b.created, b.created_at, r.status,
       count(r.id) AS n
FROM backfills b
LEFT JOIN all_runs r ON r.backfill_id = b.id
WHERE b.id = CAST(:id AS uuid)
  AND b.job_id = CAST(:jobId AS uuid)
GROUP BY b.id, r.status
