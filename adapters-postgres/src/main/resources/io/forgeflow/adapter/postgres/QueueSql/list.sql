-- list: the known queues (configured ones, 'default', those of pending or running runs, those of live recurring jobs)
-- with their depth, lag, running count, pause switch and limits. Counts use the per-queue partial indexes.
WITH clock AS (
    SELECT coalesce(CAST(:now AS timestamptz), now()) AS now
), names AS (
    SELECT name FROM queues
    UNION SELECT 'default'
    UNION SELECT DISTINCT queue FROM runs WHERE status = 'pending'
    UNION SELECT DISTINCT queue FROM runs WHERE status = 'running'
    UNION SELECT DISTINCT queue FROM jobs WHERE status IN ('active', 'paused') AND cron_expr IS NOT NULL
)
SELECT n.name,
       (SELECT count(*) FROM runs WHERE status = 'pending' AND queue = n.name) AS pending,
       (SELECT count(*) FROM runs WHERE status = 'pending' AND queue = n.name AND scheduled_for <= c.now) AS due,
       (SELECT count(*) FROM runs WHERE status = 'running' AND queue = n.name) AS running,
       coalesce(extract(epoch FROM c.now - (SELECT min(scheduled_for) FROM runs
                                            WHERE status = 'pending' AND queue = n.name AND scheduled_for <= c.now)),
                0) AS lag_seconds,
       coalesce(q.paused, false) AS paused, q.max_running, q.rate_count, q.rate_per_seconds,
       CASE WHEN q.rate_count IS NULL THEN 0
            ELSE (SELECT count(*) FROM queue_starts s
                  WHERE s.queue = n.name AND s.started_at > c.now - q.rate_per_seconds * interval '1 second')
       END AS starts_in_window
FROM names n
CROSS JOIN clock c
LEFT JOIN queues q ON q.name = n.name
ORDER BY n.name
