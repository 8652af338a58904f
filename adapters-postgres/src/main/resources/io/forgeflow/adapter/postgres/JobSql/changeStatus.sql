-- changeStatus: compare-and-set on the job row status (row lock until commit). A concurrent change of the same job
-- waits, then sees the new status and updates nothing. A pause stores its note and author (:note, :by); any other
-- change clears them. A resume starts pause_after_failures' count of dead runs in a row again. A pause of a job
-- whose notify asks for "paused" writes its notice to the outbox in the same statement (a new note on a paused job
-- does not: that is no new pause).
WITH changed AS (
    UPDATE jobs
    SET status      = :next,
        paused_note = CASE WHEN :next = 'paused' THEN CAST(:note AS text) END,
        paused_by   = CASE WHEN :next = 'paused' THEN CAST(:by AS text) END,
        next_run_at = CAST(:nextRunAt AS timestamptz),
        dead_streak = CASE WHEN :next = 'active' THEN 0 ELSE dead_streak END,
        updated_at  = coalesce(CAST(:now AS timestamptz), now())
    WHERE id = CAST(:id AS uuid) AND status = :expected
    RETURNING *
), noticed AS (
    INSERT INTO notices (job_id, job_name, event, url, note, created_at)
    SELECT c.id, c.name, 'paused', c.notify ->> 'url', c.paused_note, c.updated_at
    FROM changed c
    WHERE :next = 'paused' AND :expected <> 'paused' AND c.notify -> 'on' @> '["paused"]'
)
SELECT *
FROM changed
