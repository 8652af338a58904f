-- listForDisplayMatching: listMatching.sql (the same filters, run with custom plans by FilteredLists) for a response,
-- bounded by the query itself (issue 23). A payload whose JSON text is over :payloadLimit bytes is not read out
-- (payload_truncated; an empty object stands in, a java job's with its handler alone, for the list's waiting_for).
-- Writing a jsonb as text costs about 50 ms a MiB, so the text is measured only when the payload's binary size
-- (pg_column_size of a detoasted copy, about a millisecond a MiB) is under 8 times the limit: the binary form is at
-- most about 4 times the text (small numbers in arrays), so a larger one is surely cut.
-- The byte budget: each of the (at most :limit) candidates counts :overhead bytes plus its listed payload, its texts
-- and its labels; only the rows whose running sum, newest first, stays within :budget are returned (the first always
-- is). candidates (the same on every row) tells the caller whether rows were left for the next page. A plain read; no
-- locks.
WITH candidate AS MATERIALIZED (
    SELECT j.id,
           CASE WHEN pg_column_size(j.payload || '{}'::jsonb) > 8 * :payloadLimit THEN :payloadLimit + 1
                ELSE octet_length(j.payload::text) END AS payload_bytes
    FROM jobs j
    WHERE (CASE WHEN CAST(:status AS text) IS NULL THEN j.status <> 'deleted' ELSE j.status = CAST(:status AS text) END)
      AND (CAST(:queue AS text) IS NULL OR j.queue = CAST(:queue AS text))
      AND (CAST(:labels AS jsonb) IS NULL OR (j.labels <> '{}'::jsonb AND j.labels @> CAST(:labels AS jsonb)))
      AND (CAST(:namePrefix AS text) IS NULL OR j.name LIKE CAST(:namePrefix AS text))
      AND (CAST(:tenant AS text) IS NULL
           OR (j.tenant = CAST(:tenant AS text) AND (CAST(:tenant AS text) = 'default' OR j.tenant <> 'default')))
      AND (CAST(:after AS uuid) IS NULL OR j.id < CAST(:after AS uuid))
    ORDER BY j.id DESC
    LIMIT :limit
), sized AS (
    SELECT c.id, c.payload_bytes > :payloadLimit AS payload_truncated,
           sum(:overhead + CASE WHEN c.payload_bytes > :payloadLimit THEN 0 ELSE c.payload_bytes END
               + octet_length(j.name) + octet_length(j.executor) + coalesce(octet_length(j.cron_expr), 0)
               + octet_length(j.timezone) + coalesce(octet_length(j.idempotency_key), 0) + octet_length(j.queue)
               + coalesce(octet_length(j.concurrency_key), 0) + octet_length(j.submitted_via)
               + coalesce(octet_length(j.unique_key), 0) + octet_length(j.labels::text)
               + coalesce(octet_length(j.notify::text), 0) + coalesce(octet_length(j.debounce::text), 0)
               + coalesce(octet_length(j.throttle::text), 0))
               OVER newest_first AS running_bytes,
           row_number() OVER newest_first AS n,
           count(*) OVER () AS candidates
    FROM candidate c
    JOIN jobs j ON j.id = c.id
    WINDOW newest_first AS (ORDER BY c.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT j.id, j.name, j.executor,
       CASE WHEN NOT s.payload_truncated THEN j.payload
            WHEN j.executor = 'java' THEN jsonb_build_object('handler', j.payload -> 'handler')
            ELSE '{}'::jsonb END AS payload,
       s.payload_truncated, j.cron_expr, j.run_at, j.timezone, j.priority, j.max_attempts, j.timeout_seconds,
       j.catch_up, j.idempotency_key, j.queue, j.concurrency_key, j.max_concurrent, j.overlap, j.status, j.next_run_at,
       j.created_at, j.updated_at, j.submitted_via, j.unique_key, j.traceparent, j.tracestate, j.retry_base_seconds,
       j.retry_max_seconds, j.labels, j.start_at, j.end_at, j.max_runs, j.jitter_seconds, j.pause_after_failures,
       j.fired_runs, j.paused_note, j.paused_by, j.dead_streak, j.notify, j.debounce, j.throttle, j.tenant, s.candidates
FROM sized s
JOIN jobs j ON j.id = s.id
WHERE s.n = 1 OR s.running_bytes <= :budget
ORDER BY s.id DESC
