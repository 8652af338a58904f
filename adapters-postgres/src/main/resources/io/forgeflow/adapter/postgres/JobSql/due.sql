-- due: the leader's read of active recurring jobs whose next_run_at has passed, earliest first; no locks (fireTick
-- guards each job with a compare-and-set). Served by the partial index on next_run_at.
SELECT *
FROM jobs
WHERE status = 'active'
  AND cron_expr IS NOT NULL
  AND next_run_at <= CAST(:asOf AS timestamptz)
ORDER BY next_run_at, id
LIMIT :limit
