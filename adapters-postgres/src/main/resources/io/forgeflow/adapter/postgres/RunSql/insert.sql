-- insert: a new run (with its job's labels). A pending run of a job with parents (a resume, a trigger) waits for them
-- instead (the caller then decides it: forgeflow_resolve_child); a run of a parent is marked has_children.
-- (The first run of a submission, or a manual trigger); no locks beyond the new row. fired_for
-- stays null: only scheduler ticks (JobSql/fireTick) carry one. Queue and concurrency key come from the job (a key of
-- its own, job:<id>, when the job gave max_concurrent alone), and so do the retry policy and the unique key: a pending run carrying a key
-- a live run of its queue holds fails on runs_live_unique_key (23505), which the caller reports as a conflict.
INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload,
                  timeout_seconds, created_at, queue, concurrency_key, max_concurrent, unique_key, traceparent,
                  tracestate, trace_origin, retry_base_seconds, retry_max_seconds, labels, has_children, sequence_key,
                  sequence_on_dead, throttle_key, throttle_count, throttle_per_seconds, tenant)
SELECT CAST(:id AS uuid), j.id,
       CASE WHEN :status = 'pending' AND EXISTS (SELECT 1 FROM job_dependencies d WHERE d.job_id = j.id)
            THEN 'waiting' ELSE :status END, :priority, :scheduledFor, :attempt, :maxAttempts, :executor,
       :payload, :timeoutSeconds,
       coalesce(CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()),
       j.queue, CASE WHEN j.max_concurrent IS NULL THEN NULL ELSE coalesce(j.concurrency_key, 'job:' || j.id) END,
       j.max_concurrent, j.unique_key,
       -- trace: under the trigger's context when it came with one, else under the job's (a new trace for a cron job)
       forgeflow_trace_child(coalesce(CAST(:traceOrigin AS text), j.traceparent),
                             CAST(:traceOrigin AS text) IS NULL AND j.cron_expr IS NOT NULL),
       CASE WHEN CAST(:traceOrigin AS text) IS NULL THEN j.tracestate ELSE CAST(:traceState AS text) END,
       coalesce(CAST(:traceOrigin AS text), j.traceparent),
       j.retry_base_seconds, j.retry_max_seconds, j.labels,
       EXISTS (SELECT 1 FROM job_dependencies d WHERE d.parent_id = j.id),
       -- its job's sequence: the run waits behind the sequence's head (forgeflow_sequences.sql decides at insert)
       j.sequence_key, j.sequence_on_dead,
       -- its job's throttle (forgeflow_claim.sql holds its starts to the limit)
       j.throttle ->> 'key', (j.throttle ->> 'count')::integer, (j.throttle ->> 'per_seconds')::integer,
       -- its job's tenant, always (migration 0025)
       j.tenant
FROM jobs j
WHERE j.id = CAST(:jobId AS uuid)
RETURNING *
