-- countByStatus: a plain read, no locks; one row per status that has runs (the caller fills in the zeros).
SELECT status, count(*) AS runs
FROM runs
GROUP BY status
