-- fireTick: one statement, two guards. The UPDATE is a compare-and-set on the job row (it applies only while the job
-- is active and next_run_at still equals the expected tick; a concurrent firer waits for the row lock, then matches
-- nothing). The INSERT runs only when the job advanced, and ON CONFLICT on the unique (job_id, fired_for) index drops
-- a second run for the same tick, so a tick never fires twice even if two nodes both believe they lead.
-- Overlap: for a job whose policy is not 'allow' the job's live runs are locked first (runs before jobs, the order of
-- every other writer) and decide: 'skip' drops the tick while any is pending or running, 'queue_one' while one is
-- pending, 'cancel_running' cancels the pending ones and asks the running ones to stop, then fires. A dropped tick
-- still advances next_run_at. With :expectedUpdatedAt, the job must also still be the definition the tick was computed
-- from (no PATCH since the read: update moves updated_at forward). Returns the action: 'fire', 'skip', or no row when
-- the job did not advance. The overlap decision is taken before the UPDATE (from :overlap, the job's policy as read)
-- so that the run it fires counts against max_runs in the same statement.
WITH live AS MATERIALIZED (
    SELECT id, status
    FROM runs
    WHERE job_id = CAST(:jobId AS uuid)
      AND :overlap <> 'allow'
      AND status IN ('pending', 'running')
    ORDER BY id
    FOR UPDATE
), pre AS (
    SELECT CASE
               WHEN CAST(:runId AS uuid) IS NULL THEN 'fire'
               WHEN :overlap = 'skip' AND EXISTS (SELECT 1 FROM live) THEN 'skip'
               WHEN :overlap = 'queue_one' AND EXISTS (SELECT 1 FROM live WHERE status = 'pending') THEN 'skip'
               ELSE 'fire'
           END AS action,
           CASE
               WHEN CAST(:runId AS uuid) IS NULL THEN 0
               WHEN :overlap = 'skip' AND EXISTS (SELECT 1 FROM live) THEN 0
               WHEN :overlap = 'queue_one' AND EXISTS (SELECT 1 FROM live WHERE status = 'pending') THEN 0
               ELSE 1
           END AS counted
), advanced AS (
    -- max_runs: a fired run counts; the job completes with its last run, or when no tick is left (:newNextRunAt null)
    UPDATE jobs j
    SET next_run_at = CASE WHEN CAST(:newNextRunAt AS timestamptz) IS NULL
                                OR j.max_runs IS NOT NULL AND j.fired_runs + p.counted >= j.max_runs THEN NULL
                           ELSE CAST(:newNextRunAt AS timestamptz) END,
        status      = CASE WHEN CAST(:newNextRunAt AS timestamptz) IS NULL
                                OR j.max_runs IS NOT NULL AND j.fired_runs + p.counted >= j.max_runs THEN 'completed'
                           ELSE j.status END,
        fired_runs  = j.fired_runs + p.counted,
        updated_at  = coalesce(CAST(:now AS timestamptz), now())
    FROM pre p
    WHERE j.id = CAST(:jobId AS uuid)
      AND j.status = 'active'
      AND j.next_run_at = CAST(:expectedNextRunAt AS timestamptz)
      AND (CAST(:expectedUpdatedAt AS timestamptz) IS NULL OR j.updated_at = CAST(:expectedUpdatedAt AS timestamptz))
      AND (SELECT count(*) FROM live) >= 0
    RETURNING j.id, j.overlap, j.queue, j.concurrency_key, j.max_concurrent, j.traceparent, j.tracestate,
    j.retry_base_seconds, j.retry_max_seconds, j.labels, j.throttle, j.tenant, p.action
), decision AS (
    SELECT a.*
    FROM advanced a
), replaced AS (
    UPDATE runs r
    SET status      = 'cancelled',
        finished_at = coalesce(CAST(:now AS timestamptz), now()),
        error       = 'cancelled: a newer tick replaced it (overlap cancel_running)'
    FROM decision d, live l
    WHERE d.action = 'fire' AND d.overlap = 'cancel_running' AND CAST(:runId AS uuid) IS NOT NULL
      AND r.id = l.id AND r.status = 'pending'
    RETURNING r.id
), stopped AS (
    UPDATE runs r
    SET cancel_requested = true
    FROM decision d, live l
    WHERE d.action = 'fire' AND d.overlap = 'cancel_running' AND CAST(:runId AS uuid) IS NOT NULL
      AND r.id = l.id AND r.status = 'running'
    RETURNING r.id
), fired AS (
    INSERT INTO runs (id, job_id, status, priority, scheduled_for, fired_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at, queue, concurrency_key, max_concurrent, traceparent, tracestate,
                      trace_origin, retry_base_seconds, retry_max_seconds, labels, throttle_key, throttle_count,
                      throttle_per_seconds, tenant)
    SELECT CAST(:runId AS uuid), d.id, 'pending', :priority, :scheduledFor,
           CAST(:expectedNextRunAt AS timestamptz), 0, :maxAttempts, :executor, :payload, :timeoutSeconds,
           coalesce(CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()),
           d.queue, CASE WHEN d.max_concurrent IS NULL THEN NULL ELSE coalesce(d.concurrency_key, 'job:' || d.id) END,
           d.max_concurrent, forgeflow_trace_child(d.traceparent, true), d.tracestate, d.traceparent,
           d.retry_base_seconds, d.retry_max_seconds, d.labels, d.throttle ->> 'key',
           (d.throttle ->> 'count')::integer, (d.throttle ->> 'per_seconds')::integer, d.tenant
    FROM decision d
    WHERE CAST(:runId AS uuid) IS NOT NULL AND d.action = 'fire'
    ON CONFLICT (job_id, fired_for) WHERE fired_for IS NOT NULL DO NOTHING
)
SELECT d.action || CASE WHEN (SELECT count(*) FROM replaced) + (SELECT count(*) FROM stopped) > 0 THEN '+replaced' ELSE '' END
FROM decision d
