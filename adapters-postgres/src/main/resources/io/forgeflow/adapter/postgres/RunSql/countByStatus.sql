-- countByStatus: a plain read, no locks; one row per status that has runs (the caller fills in the zeros); of one
-- tenant's runs when :tenant is given (a filter over the whole table, as the count of every tenant reads it).
SELECT status, count(*) AS runs
FROM all_runs
WHERE (CAST(:tenant AS text) IS NULL
       OR (tenant = CAST(:tenant AS text) AND (CAST(:tenant AS text) = 'default' OR tenant <> 'default')))
GROUP BY status
