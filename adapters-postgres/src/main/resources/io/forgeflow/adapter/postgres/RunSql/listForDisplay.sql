-- listForDisplay: list.sql for a response, bounded by the query itself: the output's last :tail characters (and
-- whether it was cut), no payload (an empty object stands in; list items never show it; a java run's stands in with
-- its handler alone, for the list's waiting_for). A plain read; no locks. The worker of a run that is not running is
-- its last attempt's (a primary-key probe of run_attempts per row returned).
-- The byte budget: each of the (at most :limit) candidates counts :overhead bytes plus its output tail, error and
-- worker; only the rows whose running sum, newest first, stays within :budget are returned (the first always is).
-- candidates (the same on every row) tells the caller whether rows were left for the next page.
WITH candidate AS (
    SELECT r.id, r.job_id, r.status, r.attempt, r.max_attempts, r.priority, r.scheduled_for, r.started_at,
           r.finished_at,
           coalesce(r.worker_id, (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = r.id AND a.attempt = r.attempt))
               AS worker_id,
           r.lease_expires_at, right(r.output, :tail) AS output,
           coalesce(char_length(r.output) > :tail, false) AS output_truncated,
           r.error, r.executor,
           CASE WHEN r.executor = 'java' THEN jsonb_build_object('handler', r.payload -> 'handler') ELSE '{}'::jsonb END
               AS payload,
           r.timeout_seconds, r.cancel_requested, r.created_at, r.traceparent, r.tracestate, r.trace_origin,
           r.retry_base_seconds, r.retry_max_seconds
    FROM runs r
    WHERE (CAST(:jobId AS uuid) IS NULL OR r.job_id = CAST(:jobId AS uuid))
      AND (CAST(:status AS text) IS NULL OR r.status = CAST(:status AS text))
      AND (CAST(:after AS uuid) IS NULL OR r.id < CAST(:after AS uuid))
    ORDER BY r.id DESC
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
