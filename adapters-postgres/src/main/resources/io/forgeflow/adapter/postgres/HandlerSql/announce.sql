-- announce: this worker's handler rows, exactly :names, valid until now + :ttlMillis; in one statement (row locks on
-- this worker's rows, and of the rows it deletes). Rows of other workers expired for a day go too: the leftovers of
-- killed workers, few and small. The two parts touch disjoint rows (a row is never changed twice by one statement).
WITH kept AS (
    INSERT INTO handlers (name, worker_id, seen_at, expires_at)
    SELECT n, :workerId, coalesce(CAST(:now AS timestamptz), now()),
           coalesce(CAST(:now AS timestamptz), now()) + :ttlMillis * interval '1 millisecond'
    FROM unnest(CAST(:names AS text[])) AS n
    ON CONFLICT (name, worker_id) DO UPDATE SET seen_at = excluded.seen_at, expires_at = excluded.expires_at
    RETURNING name
)
DELETE FROM handlers h
WHERE (h.worker_id = :workerId AND h.name <> ALL (CAST(:names AS text[])))
   OR (h.worker_id <> :workerId AND h.expires_at < coalesce(CAST(:now AS timestamptz), now()) - interval '1 day')
