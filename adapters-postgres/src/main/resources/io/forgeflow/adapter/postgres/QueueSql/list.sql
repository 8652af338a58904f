-- list: the known queues of :tenant, or of every tenant when it is null (configured ones, 'default', those of pending
-- or running runs, those of live recurring jobs), by tenant and name, with their depth, lag, running count, pause
-- switch and limits. The live runs are counted in one pass per status over the partial indexes, grouped by tenant and
-- queue.
WITH clock AS (
    SELECT coalesce(CAST(:now AS timestamptz), now()) AS now
), pending AS (
    SELECT r.tenant, r.queue, count(*) AS pending, count(*) FILTER (WHERE r.scheduled_for <= c.now) AS due,
           min(r.scheduled_for) FILTER (WHERE r.scheduled_for <= c.now) AS oldest_due
    FROM runs r CROSS JOIN clock c
    WHERE r.status = 'pending' AND (CAST(:tenant AS text) IS NULL OR r.tenant = :tenant)
    GROUP BY r.tenant, r.queue
), running AS (
    SELECT tenant, queue, count(*) AS running
    FROM runs
    WHERE status = 'running' AND (CAST(:tenant AS text) IS NULL OR tenant = :tenant)
    GROUP BY tenant, queue
), names AS (
    SELECT tenant, name FROM queues WHERE CAST(:tenant AS text) IS NULL OR tenant = :tenant
    UNION SELECT coalesce(CAST(:tenant AS text), 'default'), 'default'
    UNION SELECT tenant, queue FROM pending
    UNION SELECT tenant, queue FROM running
    UNION SELECT DISTINCT tenant, queue FROM jobs
          WHERE status IN ('active', 'paused') AND cron_expr IS NOT NULL
            AND (CAST(:tenant AS text) IS NULL OR tenant = :tenant)
)
SELECT n.tenant, n.name,
       coalesce(p.pending, 0) AS pending, coalesce(p.due, 0) AS due, coalesce(r.running, 0) AS running,
       coalesce(extract(epoch FROM c.now - p.oldest_due), 0) AS lag_seconds,
       coalesce(q.paused, false) AS paused, q.max_running, q.rate_count, q.rate_per_seconds,
       CASE WHEN q.rate_count IS NULL THEN 0
            ELSE (SELECT count(*) FROM queue_starts s
                  WHERE s.tenant = n.tenant AND s.queue = n.name
                    AND s.started_at > c.now - q.rate_per_seconds * interval '1 second')
       END AS starts_in_window
FROM names n
CROSS JOIN clock c
LEFT JOIN pending p ON p.tenant = n.tenant AND p.queue = n.name
LEFT JOIN running r ON r.tenant = n.tenant AND r.queue = n.name
LEFT JOIN queues q ON q.tenant = n.tenant AND q.name = n.name
ORDER BY n.tenant, n.name
