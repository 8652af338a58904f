-- countByStatus: a plain read, no locks; one row per status that has runs (the caller fills in the zeros); of one
-- tenant's runs when :tenant is given (a filter over the whole of runs, as the count of every tenant reads it). The
-- finished history is added from its counts (history_counts, migration 0035), never counted row by row.
SELECT status, CAST(sum(runs) AS bigint) AS runs
FROM (SELECT status, count(*) AS runs
      FROM runs
      WHERE (CAST(:tenant AS text) IS NULL
             OR (tenant = CAST(:tenant AS text) AND (CAST(:tenant AS text) = 'default' OR tenant <> 'default')))
      GROUP BY status
      UNION ALL
      SELECT h.status, h.runs FROM forgeflow_history_status_counts(CAST(:tenant AS text)) h) counted
GROUP BY status
HAVING sum(runs) > 0
