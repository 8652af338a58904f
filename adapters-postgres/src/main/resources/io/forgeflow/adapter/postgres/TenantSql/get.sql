-- get: one tenant, known or not (an unknown name reads as an idle tenant with the default settings)
WITH clock AS (
    SELECT coalesce(CAST(:now AS timestamptz), now()) AS now
)
SELECT CAST(:name AS text) AS name,
       coalesce(t.weight, 1) AS weight, t.max_running, t.rate_count, t.rate_per_seconds,
       (SELECT count(*) FROM runs WHERE status = 'pending' AND tenant = :name) AS pending,
       (SELECT count(*) FROM runs WHERE status = 'running' AND tenant = :name) AS running,
       CASE WHEN t.rate_count IS NULL THEN 0
            ELSE (SELECT count(*) FROM tenant_starts s
                  WHERE s.tenant = :name AND s.started_at > c.now - t.rate_per_seconds * interval '1 second')
       END AS starts_in_window
FROM clock c
LEFT JOIN tenants t ON t.name = :name
