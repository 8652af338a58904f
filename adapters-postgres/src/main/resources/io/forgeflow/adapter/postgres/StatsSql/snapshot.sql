-- snapshot: plain reads, no locks, one round trip, for the metrics. Each count is served by an index on status (the
-- partial pending and running indexes, (status, id DESC) for the finished ones). The lag is the age of the oldest due
-- pending run: one probe of the pending queue index (priority, scheduled_for, id) per priority, never a scan.
-- finished runs: those still in runs, plus the history's counts (history_counts, migration 0035; a row per status),
-- never a count of the history's rows
WITH history AS (SELECT h.status, h.runs FROM forgeflow_history_status_counts(NULL) h)
SELECT (SELECT count(*) FROM runs WHERE status = 'waiting')   AS waiting,
       (SELECT count(*) FROM runs WHERE status = 'pending')   AS pending,
       (SELECT count(*) FROM runs WHERE status = 'running')   AS running,
       (SELECT count(*) FROM runs WHERE status = 'succeeded')
         + (SELECT coalesce(max(h.runs), 0) FROM history h WHERE h.status = 'succeeded') AS succeeded,
       (SELECT count(*) FROM runs WHERE status = 'dead')
         + (SELECT coalesce(max(h.runs), 0) FROM history h WHERE h.status = 'dead') AS dead,
       (SELECT count(*) FROM runs WHERE status = 'cancelled')
         + (SELECT coalesce(max(h.runs), 0) FROM history h WHERE h.status = 'cancelled') AS cancelled,
       (SELECT coalesce(extract(epoch FROM coalesce(CAST(:now AS timestamptz), now()) - min(first.scheduled_for)), 0)
        FROM generate_series(1, 9) AS p (priority)
        CROSS JOIN LATERAL (SELECT r.scheduled_for
                            FROM runs r
                            WHERE r.status = 'pending' AND r.priority = p.priority
                            ORDER BY r.scheduled_for
                            LIMIT 1) AS first) AS lag_seconds,
       -- throttled runs not due yet (their partial index): most wait for their key's window (forgeflow_claim.sql)
       (SELECT count(*) FROM runs
        WHERE status = 'pending' AND throttle_key IS NOT NULL
          AND scheduled_for > coalesce(CAST(:now AS timestamptz), now())) AS throttled,
       -- live runs of each tenant but default, through the pending and running indexes: {"acme": [pending, running]}
       (SELECT jsonb_object_agg(t.tenant, jsonb_build_array(t.pending, t.running))
        FROM (SELECT tenant, count(*) FILTER (WHERE status = 'pending') AS pending,
                     count(*) FILTER (WHERE status = 'running') AS running
              FROM runs
              WHERE status IN ('pending', 'running') AND tenant <> 'default'
              GROUP BY tenant) t)::text AS tenants
