-- list: a plain read, newest first (UUIDv7 ids are time-ordered), keyset-paginated by the last id of the previous
-- page; no locks. Served by (status, id DESC), or by the primary key when unfiltered.
SELECT *
FROM jobs
WHERE (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:after AS uuid) IS NULL OR id < CAST(:after AS uuid))
ORDER BY id DESC
LIMIT :limit
