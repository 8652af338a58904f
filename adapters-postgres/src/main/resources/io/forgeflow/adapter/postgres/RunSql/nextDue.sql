-- nextDue: milliseconds until the earliest pending run of this selection that is not due yet (null: none), for a
-- worker's wake-up timer. A plain read, no locks. One probe of the pending queue index per priority (1 to 9, the
-- range the schema allows), each starting after now and stopping at its first matching run, so a deep backlog of
-- due runs is never scanned. Runs are matched by their claim key (db/functions/forgeflow_claim_key.sql).
SELECT EXTRACT(EPOCH FROM min(next.scheduled_for) - coalesce(CAST(:now AS timestamptz), now())) * 1000 AS millis
FROM generate_series(1, 9) AS p (priority)
CROSS JOIN LATERAL (
    SELECT r.scheduled_for
    FROM runs r
    WHERE r.status = 'pending' AND r.priority = p.priority
      AND r.scheduled_for > coalesce(CAST(:now AS timestamptz), now())
      AND forgeflow_claim_key(r.executor, r.payload) = ANY (CAST(:executors AS text[]))
      AND (CAST(:include AS text[]) IS NULL OR r.queue = ANY (CAST(:include AS text[])))
      AND r.queue <> ALL (CAST(:exclude AS text[]))
    ORDER BY r.scheduled_for
    LIMIT 1
) next
