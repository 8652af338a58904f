-- list: the known tenants (configured ones, 'default', those of jobs, those of pending runs) with their settings and
-- load. The names of jobs' and pending runs' tenants are read one index descent per tenant (jobs_tenant_idx,
-- runs_pending_tenant_idx), never by reading every row.
WITH RECURSIVE clock AS (
    SELECT coalesce(CAST(:now AS timestamptz), now()) AS now
), job_tenants (tenant) AS (
    (SELECT tenant FROM jobs WHERE tenant <> 'default' ORDER BY tenant LIMIT 1)
    UNION ALL
    SELECT (SELECT j.tenant FROM jobs j WHERE j.tenant <> 'default' AND j.tenant > t.tenant ORDER BY j.tenant LIMIT 1)
    FROM job_tenants t WHERE t.tenant IS NOT NULL
), run_tenants (tenant) AS (
    (SELECT tenant FROM runs WHERE status = 'pending' ORDER BY tenant LIMIT 1)
    UNION ALL
    SELECT (SELECT r.tenant FROM runs r WHERE r.status = 'pending' AND r.tenant > t.tenant ORDER BY r.tenant LIMIT 1)
    FROM run_tenants t WHERE t.tenant IS NOT NULL
), names AS (
    SELECT name FROM tenants
    UNION SELECT 'default'
    UNION SELECT tenant FROM job_tenants WHERE tenant IS NOT NULL
    UNION SELECT tenant FROM run_tenants WHERE tenant IS NOT NULL
), running AS (
    SELECT tenant, count(*) AS n FROM runs WHERE status = 'running' GROUP BY tenant
)
SELECT n.name,
       coalesce(t.weight, 1) AS weight, t.max_running, t.rate_count, t.rate_per_seconds,
       (SELECT count(*) FROM runs WHERE status = 'pending' AND tenant = n.name) AS pending,
       coalesce((SELECT r.n FROM running r WHERE r.tenant = n.name), 0) AS running,
       CASE WHEN t.rate_count IS NULL THEN 0
            ELSE (SELECT count(*) FROM tenant_starts s
                  WHERE s.tenant = n.name AND s.started_at > c.now - t.rate_per_seconds * interval '1 second')
       END AS starts_in_window
FROM names n
CROSS JOIN clock c
LEFT JOIN tenants t ON t.name = n.name
ORDER BY n.name
