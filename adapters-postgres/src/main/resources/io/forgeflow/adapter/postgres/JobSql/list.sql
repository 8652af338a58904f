-- list: a plain read, newest first (UUIDv7 ids are time-ordered), keyset-paginated by the last id of the previous
-- page; no locks. Served by (status, id DESC), or by the primary key when unfiltered. Deleted jobs (tombstones) are
-- listed only when asked for by status.
SELECT *
FROM jobs
WHERE (CASE WHEN CAST(:status AS text) IS NULL THEN status <> 'deleted' ELSE status = CAST(:status AS text) END)
  AND (CAST(:after AS uuid) IS NULL OR id < CAST(:after AS uuid))
ORDER BY id DESC
LIMIT :limit
