-- deleteFinishedRuns: one bounded batch of the leader's retention. The partial index on finished_at over finished
-- runs finds the oldest; FOR UPDATE SKIP LOCKED passes over any row another transaction holds (a requeue), so this
-- never waits, and a run requeued since this statement began no longer matches when its lock is taken. The row locks
-- last for this one statement. Attempt rows go with their run (ON DELETE CASCADE).
WITH doomed AS (
    SELECT id
    FROM runs
    WHERE status IN ('succeeded', 'dead', 'cancelled')
      AND finished_at < coalesce(CAST(:now AS timestamptz), now()) - :olderThanMillis * interval '1 millisecond'
    ORDER BY finished_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
DELETE FROM runs r
USING doomed
WHERE r.id = doomed.id
