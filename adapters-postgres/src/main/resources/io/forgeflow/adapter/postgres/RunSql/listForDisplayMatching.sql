-- listForDisplayMatching: listMatching for a response, bounded by the query itself (issue 23): the output's last :tail
-- characters (and whether it was cut), no payload (an empty object stands in; list items never show it; a java run's
-- stands in with its handler alone, for the list's waiting_for). Every filter is optional (null: no condition). Run
-- with custom plans (FilteredLists): the planner sees the values, folds the absent filters away and picks the index
-- that serves the given ones: (job_id, id DESC), (status, id DESC), (queue, id DESC) over runs outside the default
-- queue (hence the redundant r.queue <> 'default' for another queue), the GIN index of labels (labelled runs only),
-- (finished_at) over finished runs (hence the status condition), or the primary key. With :scheduledBefore the order is
-- the id's text (the same order: lower-case hex, hyphens in fixed places), which no index provides, so the planner
-- reads the window through the BRIN index of scheduled_for and sorts it rather than walking the primary key backwards
-- through every newer run (it assumes matching rows are spread evenly; an old window is at the far end). A run that is
-- not running shows the worker of its last attempt (a primary-key probe of run_attempts per row returned). Plain reads;
-- no locks.
-- The byte budget: each of the (at most :limit) candidates counts :overhead bytes plus its output tail, error and
-- worker; only the rows whose running sum, newest first, stays within :budget are returned (the first always is).
-- candidates (the same on every row) tells the caller whether rows were left for the next page. The newest-first window
-- orders by id, the same order as the id's text that :scheduledBefore pages use.
WITH live AS MATERIALIZED (
    -- planned on its own, as when runs held every run: one table, its filter, its order and its limit
    SELECT *
    FROM runs r
    WHERE (CAST(:jobId AS uuid) IS NULL OR r.job_id = CAST(:jobId AS uuid))
      AND (CAST(:status AS text) IS NULL OR r.status = CAST(:status AS text))
      AND (CAST(:queue AS text) IS NULL
           OR (r.queue = CAST(:queue AS text) AND (CAST(:queue AS text) = 'default' OR r.queue <> 'default')))
      AND (CAST(:labels AS jsonb) IS NULL OR (r.labels <> '{}'::jsonb AND r.labels @> CAST(:labels AS jsonb)))
      AND (CAST(:scheduledAfter AS timestamptz) IS NULL OR r.scheduled_for > CAST(:scheduledAfter AS timestamptz))
      AND (CAST(:scheduledBefore AS timestamptz) IS NULL OR r.scheduled_for < CAST(:scheduledBefore AS timestamptz))
      AND (CAST(:finishedAfter AS timestamptz) IS NULL
           OR (r.finished_at > CAST(:finishedAfter AS timestamptz) AND r.status IN ('succeeded', 'dead', 'cancelled')))
      AND (CAST(:tenant AS text) IS NULL
           OR (r.tenant = CAST(:tenant AS text) AND (CAST(:tenant AS text) = 'default' OR r.tenant <> 'default')))
      AND (CAST(:after AS uuid) IS NULL OR r.id < CAST(:after AS uuid))
    ORDER BY CASE WHEN CAST(:scheduledBefore AS timestamptz) IS NULL THEN NULL ELSE r.id::text END DESC, r.id DESC
    LIMIT :limit
), candidate AS (
    SELECT r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, r.scheduled_for, r.started_at,
           r.finished_at,
           coalesce(r.worker_id, (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = r.id AND a.attempt = r.attempt))
               AS worker_id,
           r.lease_expires_at, right(r.output, :tail) AS output,
           coalesce(char_length(r.output) > :tail, false) AS output_truncated,
           r.error, r.executor,
           CASE WHEN r.executor = 'java' THEN jsonb_build_object('handler', r.payload -> 'handler') ELSE '{}'::jsonb END
               AS payload,
           r.timeout_seconds, r.cancel_requested, r.created_at, r.queue, r.traceparent, r.tracestate, r.trace_origin,
           r.retry_base_seconds, r.retry_max_seconds, r.labels, r.snoozes, r.tenant
    FROM (
        -- runs and the finished history paged apart, then merged (the history a partition at a time:
        -- forgeflow_history_page)
        (SELECT * FROM live)
        UNION ALL
        (SELECT *
         FROM forgeflow_history_page(CAST(:jobId AS uuid), CAST(:status AS text), CAST(:queue AS text),
                                     CAST(:labels AS jsonb), CAST(:scheduledAfter AS timestamptz),
                                     CAST(:scheduledBefore AS timestamptz), CAST(:finishedAfter AS timestamptz),
                                     CAST(:tenant AS text), CAST(:after AS uuid), :limit))
    ) r
    ORDER BY CASE WHEN CAST(:scheduledBefore AS timestamptz) IS NULL THEN NULL ELSE r.id::text END DESC, r.id DESC
    LIMIT :limit
), sized AS (
    SELECT c.*,
           sum(:overhead + coalesce(octet_length(c.output), 0) + coalesce(octet_length(c.error), 0)
               + coalesce(octet_length(c.worker_id), 0)) OVER newest_first AS running_bytes,
           row_number() OVER newest_first AS n,
           count(*) OVER () AS candidates
    FROM candidate c
    WINDOW newest_first AS (ORDER BY c.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT *
FROM sized
WHERE n = 1 OR running_bytes <= :budget
ORDER BY id DESC
