-- nextTickIn: milliseconds until the earliest next_run_at of an active recurring job (null: none; zero or less: one
-- is due). A plain read, no locks: the first entry of the partial index jobs_due_idx.
SELECT EXTRACT(EPOCH FROM min(next_run_at) - coalesce(CAST(:now AS timestamptz), now())) * 1000 AS millis
FROM jobs
WHERE status = 'active' AND cron_expr IS NOT NULL
