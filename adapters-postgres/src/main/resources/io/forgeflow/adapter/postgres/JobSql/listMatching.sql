-- listMatching: GET /api/jobs, newest first (UUIDv7 ids are time-ordered), keyset-paginated by the last id of the
-- previous page; a plain read, no locks. Every filter is optional (null: no condition). Run with custom plans
-- (FilteredLists): the planner sees the values, folds the absent filters away and picks the index that serves the
-- given ones: (status, id DESC), (queue, id DESC), the GIN index of labels (labelled jobs only), (name
-- text_pattern_ops) for the prefix (:namePrefix is a LIKE pattern, escaped), or the primary key. Deleted jobs
-- (tombstones) are listed only when asked for by status.
SELECT *
FROM jobs
WHERE (CASE WHEN CAST(:status AS text) IS NULL THEN status <> 'deleted' ELSE status = CAST(:status AS text) END)
  AND (CAST(:queue AS text) IS NULL OR queue = CAST(:queue AS text))
  AND (CAST(:labels AS jsonb) IS NULL OR (labels <> '{}'::jsonb AND labels @> CAST(:labels AS jsonb)))
  AND (CAST(:namePrefix AS text) IS NULL OR name LIKE CAST(:namePrefix AS text))
  AND (CAST(:tenant AS text) IS NULL
       OR (tenant = CAST(:tenant AS text) AND (CAST(:tenant AS text) = 'default' OR tenant <> 'default')))
  AND (CAST(:after AS uuid) IS NULL OR id < CAST(:after AS uuid))
ORDER BY id DESC
LIMIT :limit
