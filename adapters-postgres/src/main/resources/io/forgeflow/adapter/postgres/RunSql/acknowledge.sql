-- acknowledge: one statement for a whole batch of acknowledgements. Each row is fenced by (id, status = running,
-- worker_id, attempt); a stale fence (a lost lease) matches nothing and changes nothing. The held CTE locks the
-- matching runs in id order, as heartbeat and job cancellation do, so concurrent multi-row writers cannot deadlock.
-- It then finishes the attempt rows (only while they have no outcome) and completes one-off jobs whose run ended,
-- always locking runs before jobs (as changeStatus does). It returns the applied fences with each run's job and new
-- status (for the node's run events, which are published after the commit, never by a NOTIFY in this statement).
WITH batch AS (
    SELECT *
    FROM unnest(CAST(:ids AS uuid[]), CAST(:workers AS text[]), CAST(:attempts AS integer[]),
                CAST(:nextStatuses AS text[]), CAST(:delaysMillis AS bigint[]), CAST(:outcomes AS text[]),
                CAST(:outputs AS text[]), CAST(:errors AS text[]))
         AS b (id, worker_id, attempt, next_status, delay_millis, outcome, output, error)
), held AS MATERIALIZED (
    -- one primary-key lookup per batch row, in id order; the rows it keeps carry their batch values, so no later step
    -- joins the batch again (a join the planner chose itself for a generic plan once compared every batch row with
    -- every other: quadratic in the batch size, a second per 1,000 acknowledgements). The fence is tested inside a
    -- CASE on purpose: written as plain conditions, status = 'running' let the planner serve each lookup from a
    -- partial index WHERE status = 'running' (runs_running_queue_idx, which looks tiny to it) and scan every running
    -- run of the queue per batch row, quadratic again once acknowledgements lag behind the claims.
    SELECT b.*
    FROM (SELECT * FROM batch ORDER BY id) b
    CROSS JOIN LATERAL (
        SELECT id
        FROM runs
        WHERE id = b.id
          AND CASE WHEN status = 'running' THEN worker_id = b.worker_id AND attempt = b.attempt ELSE false END
        FOR UPDATE) r
), done AS (
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
        output           = b.output,
        error            = b.error
    FROM held b
    WHERE r.id = b.id
      AND CASE WHEN r.status = 'running' THEN r.worker_id = b.worker_id AND r.attempt = b.attempt ELSE false END
    RETURNING r.id, r.job_id, r.status, r.started_at, b.worker_id, b.attempt, b.outcome, b.error
), finished AS (
    INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
    SELECT id, attempt, worker_id, coalesce(started_at, CAST(:now AS timestamptz), now()),
           coalesce(CAST(:now AS timestamptz), now()), outcome, error
    FROM done
    ON CONFLICT (run_id, attempt) DO UPDATE
        SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
        WHERE a.outcome IS NULL
), completed AS (
    UPDATE jobs j
    SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST(:now AS timestamptz), now())
    WHERE j.id IN (SELECT job_id FROM done WHERE status IN ('succeeded', 'dead', 'cancelled'))
      AND j.status IN ('active', 'paused')
      AND j.cron_expr IS NULL
)
SELECT id, worker_id, attempt, job_id, status
FROM done
