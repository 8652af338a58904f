-- get: one tenant's queue, known or not (an unknown name reads as an empty, open queue)
WITH clock AS (
    SELECT coalesce(CAST(:now AS timestamptz), now()) AS now
)
SELECT CAST(:tenant AS text) AS tenant, CAST(:name AS text) AS name,
       (SELECT count(*) FROM runs WHERE status = 'pending' AND queue = :name AND tenant = :tenant) AS pending,
       (SELECT count(*) FROM runs WHERE status = 'pending' AND queue = :name AND tenant = :tenant
                                    AND scheduled_for <= c.now) AS due,
       (SELECT count(*) FROM runs WHERE status = 'running' AND queue = :name AND tenant = :tenant) AS running,
       coalesce(extract(epoch FROM c.now - (SELECT min(scheduled_for) FROM runs
                                            WHERE status = 'pending' AND queue = :name AND tenant = :tenant
                                              AND scheduled_for <= c.now)),
                0) AS lag_seconds,
       coalesce(q.paused, false) AS paused, q.max_running, q.rate_count, q.rate_per_seconds,
       CASE WHEN q.rate_count IS NULL THEN 0
            ELSE (SELECT count(*) FROM queue_starts s
                  WHERE s.tenant = :tenant AND s.queue = :name
                    AND s.started_at > c.now - q.rate_per_seconds * interval '1 second')
       END AS starts_in_window
FROM clock c
LEFT JOIN queues q ON q.tenant = :tenant AND q.name = :name
