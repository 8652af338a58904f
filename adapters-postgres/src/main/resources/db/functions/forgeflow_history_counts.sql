--liquibase formatted sql

-- The finished history's counts (migration 0035): runs of run_history per partition (its first UTC day), tenant and
-- status, kept by statement triggers on run_history for every writer of every release (the leader's move, a requeue's
-- restore, a purge), so that /api/stats and the metrics add them up instead of counting history rows. A dropped
-- partition's counts go with it (forgeflow_drop_history_day); readers add only those of partitions that exist.
-- Re-run when changed.

--changeset forgeflow:function-forgeflow_history_counts runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_history_counted() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE history_counts c SET runs = c.runs - g.runs
        FROM (SELECT (b.lower_at AT TIME ZONE 'UTC')::date AS day, o.tenant, o.status, count(*) AS runs
              FROM history_removed o
              JOIN forgeflow_history_bounds() b ON o.finished_at >= b.lower_at AND o.finished_at < b.upper_at
              GROUP BY 1, 2, 3) g
        WHERE c.day = g.day AND c.tenant = g.tenant AND c.status = g.status;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO history_counts AS c (day, tenant, status, runs)
        SELECT (b.lower_at AT TIME ZONE 'UTC')::date, n.tenant, n.status, count(*)
        FROM history_added n
        JOIN forgeflow_history_bounds() b ON n.finished_at >= b.lower_at AND n.finished_at < b.upper_at
        GROUP BY 1, 2, 3
        ON CONFLICT (day, tenant, status) DO UPDATE SET runs = c.runs + excluded.runs;
    END IF;
    RETURN NULL;
END
$$;

-- Runs of each status in history, of one tenant or (p_tenant null) of all, from the counts of the partitions that
-- exist: O(partitions), whatever the history holds. (PL/pgSQL: created before 0035 makes its table.)
CREATE OR REPLACE FUNCTION forgeflow_history_status_counts(p_tenant text)
    RETURNS TABLE (status text, runs bigint)
    LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT c.status, CAST(sum(c.runs) AS bigint)
    FROM history_counts c
    WHERE c.day IN (SELECT (b.lower_at AT TIME ZONE 'UTC')::date FROM forgeflow_history_bounds() b)
      AND (p_tenant IS NULL OR c.tenant = p_tenant)
    GROUP BY c.status;
END
$$;
