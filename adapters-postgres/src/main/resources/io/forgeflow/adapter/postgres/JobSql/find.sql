-- find: a plain read by primary key, no locks.
SELECT *
FROM jobs
WHERE id = CAST(:id AS uuid)
