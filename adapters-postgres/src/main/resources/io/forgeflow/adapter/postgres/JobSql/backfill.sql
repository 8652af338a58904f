-- backfill: one statement. The job row is locked FOR SHARE (a concurrent PATCH or status change waits, and this
-- backfill sees one definition). A tick that has a run already is left out before the insert: the insert's unique
-- check would otherwise wait for an attempt of that run that is ending, and the end of an attempt updates its run,
-- then its job, which this lock holds (a deadlock GrpcApiIT met in CI). Each tick's run copies the job's definition as a fired tick does, with fired_for and
-- scheduled_for the tick, and ON CONFLICT on the unique (job_id, fired_for) index drops a tick that already has a run,
-- so a second backfill of the same range inserts nothing. With :oneAtATime the runs share a concurrency key of their
-- own with a limit of 1 (one at a time, oldest tick first by claim order). The backfill row records what was asked
-- and how many runs were created; no row when the job is not an active or paused recurring job.
WITH job AS MATERIALIZED (
    SELECT *
    FROM jobs
    WHERE id = CAST(:jobId AS uuid)
      AND status IN ('active', 'paused')
      AND cron_expr IS NOT NULL
    FOR SHARE
), tick AS (
    SELECT t.run_id, t.at
    FROM unnest(CAST(:runIds AS uuid[]), CAST(:ticks AS timestamptz[])) AS t(run_id, at)
), inserted AS (
    INSERT INTO runs (id, job_id, status, priority, scheduled_for, fired_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at, queue, concurrency_key, max_concurrent, traceparent, tracestate,
                      trace_origin, retry_base_seconds, retry_max_seconds, labels, backfill_id, throttle_key,
                      throttle_count, throttle_per_seconds, tenant)
    SELECT t.run_id, j.id, 'pending', j.priority, t.at, t.at, 0, j.max_attempts, j.executor, j.payload,
           j.timeout_seconds, coalesce(CAST(:now AS timestamptz), now()), j.queue,
           CASE WHEN :oneAtATime THEN 'backfill:' || CAST(:backfillId AS text)
                WHEN j.max_concurrent IS NULL THEN NULL
                ELSE coalesce(j.concurrency_key, 'job:' || j.id) END,
           CASE WHEN :oneAtATime THEN 1 ELSE j.max_concurrent END,
           forgeflow_trace_child(j.traceparent, true), j.tracestate, j.traceparent, j.retry_base_seconds,
           j.retry_max_seconds, j.labels, CAST(:backfillId AS uuid), j.throttle ->> 'key',
           (j.throttle ->> 'count')::integer, (j.throttle ->> 'per_seconds')::integer, j.tenant
    FROM job j, tick t
    WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id AND r.fired_for = t.at)
      AND NOT EXISTS (SELECT 1 FROM run_history h WHERE h.job_id = j.id AND h.fired_for = t.at)
    ORDER BY t.at
    ON CONFLICT (job_id, fired_for) WHERE fired_for IS NOT NULL DO NOTHING
    RETURNING id
), recorded AS (
    INSERT INTO backfills (id, job_id, from_tick, to_tick, overlap, ticks, created, created_at)
    SELECT CAST(:backfillId AS uuid), j.id, CAST(:from AS timestamptz), CAST(:to AS timestamptz), :overlap, cardinality(CAST(:ticks AS timestamptz[])),
           (SELECT count(*) FROM inserted), coalesce(CAST(:now AS timestamptz), now())
    FROM job j
    RETURNING id
)
SELECT CAST(i.id AS text) FROM inserted i
UNION ALL
SELECT 'backfill:' || CAST(r.id AS text) FROM recorded r
