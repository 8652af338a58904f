-- recoverLeases: second statement of the recovery transaction; the runs were locked by expiredLeases. Each run goes
-- back to pending after the retry policy's delay, to dead when its attempts are exhausted, or to cancelled when an
-- operator had asked to stop it; its attempt row is finished as lease_expired; one-off jobs whose run ended become
-- completed (runs locked before jobs, as everywhere).
WITH batch AS (
    SELECT *
    FROM unnest(CAST(:ids AS uuid[]), CAST(:workers AS text[]), CAST(:attempts AS integer[]),
                CAST(:nextStatuses AS text[]), CAST(:delaysMillis AS bigint[]))
         AS b (id, worker_id, attempt, next_status, delay_millis)
), recovered AS (
    UPDATE runs r
    SET status           = b.next_status,
        worker_id        = NULL,
        lease_expires_at = NULL,
        cancel_requested = false,
        scheduled_for    = CASE WHEN b.next_status = 'pending'
                                THEN coalesce(CAST(:now AS timestamptz), now()) + b.delay_millis * interval '1 millisecond'
                                ELSE r.scheduled_for END,
        finished_at      = CASE WHEN b.next_status = 'pending' THEN NULL
                                ELSE coalesce(CAST(:now AS timestamptz), now()) END,
        error            = 'lease expired: worker ' || b.worker_id || ' stopped heartbeating during attempt ' || b.attempt
    FROM batch b
    WHERE r.id = b.id AND r.status = 'running' AND r.worker_id = b.worker_id AND r.attempt = b.attempt
    RETURNING r.*, b.worker_id AS lost_worker_id
), finished AS (
    INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
    SELECT id, attempt, lost_worker_id, coalesce(started_at, CAST(:now AS timestamptz), now()),
           coalesce(CAST(:now AS timestamptz), now()), 'lease_expired', error
    FROM recovered
    ON CONFLICT (run_id, attempt) DO UPDATE
        SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
        WHERE a.outcome IS NULL
), completed AS (
    UPDATE jobs j
    SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST(:now AS timestamptz), now())
    WHERE j.id IN (SELECT job_id FROM recovered WHERE status IN ('dead', 'cancelled'))
      AND j.status IN ('active', 'paused')
      AND j.cron_expr IS NULL
)
SELECT *
FROM recovered
ORDER BY id
