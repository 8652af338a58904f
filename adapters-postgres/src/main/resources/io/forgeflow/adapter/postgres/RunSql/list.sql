-- list: a plain read, newest first (UUIDv7 ids are time-ordered), keyset-paginated by the last id of the previous
-- page; no locks. Served by (job_id, id DESC), (status, id DESC) or the primary key, depending on the filters.
SELECT *
FROM runs
WHERE (CAST(:jobId AS uuid) IS NULL OR job_id = CAST(:jobId AS uuid))
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:after AS uuid) IS NULL OR id < CAST(:after AS uuid))
ORDER BY id DESC
LIMIT :limit
