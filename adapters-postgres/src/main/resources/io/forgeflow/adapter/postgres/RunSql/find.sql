-- find: a plain read by primary key, no locks.
SELECT *
FROM runs
WHERE id = CAST(:id AS uuid)
