-- fireTick: one statement, two guards. The UPDATE is a compare-and-set on the job row (it applies only while the job
-- is active and next_run_at still equals the expected tick; a concurrent firer waits for the row lock, then matches
-- nothing). The INSERT runs only when the job advanced, and ON CONFLICT on the unique (job_id, fired_for) index drops
-- a second run for the same tick, so a tick never fires twice even if two nodes both believe they lead.
WITH advanced AS (
    UPDATE jobs
    SET next_run_at = CAST(:newNextRunAt AS timestamptz),
        updated_at  = coalesce(CAST(:now AS timestamptz), now())
    WHERE id = CAST(:jobId AS uuid)
      AND status = 'active'
      AND next_run_at = CAST(:expectedNextRunAt AS timestamptz)
    RETURNING id
), fired AS (
    INSERT INTO runs (id, job_id, status, priority, scheduled_for, fired_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at)
    SELECT CAST(:runId AS uuid), advanced.id, 'pending', :priority, :scheduledFor,
           CAST(:expectedNextRunAt AS timestamptz), 0, :maxAttempts, :executor, :payload, :timeoutSeconds,
           coalesce(CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now())
    FROM advanced
    WHERE CAST(:runId AS uuid) IS NOT NULL
    ON CONFLICT (job_id, fired_for) WHERE fired_for IS NOT NULL DO NOTHING
)
SELECT count(*) > 0
FROM advanced
