-- requeue: compare-and-set dead|cancelled -> pending on one row, due now, with a fresh budget of attempts on top of
-- those already made (the attempt counter keeps counting, so attempt rows stay unique and history is kept). Returned
-- with the worker of its last attempt, as reads show it. Traces: the run's next life gets a span of its own in the same
-- trace, a child of the span of the life that ended (recorded then), so no span is recorded twice. Workflows: the
-- children this run's end cancelled wait again (forgeflow_reopen_children), so a fixed parent finishes its workflow.
WITH requeued AS (
UPDATE runs
SET status           = 'pending',
    max_attempts     = attempt + :attemptBudget,
    scheduled_for    = coalesce(CAST(:now AS timestamptz), now()),
    started_at       = NULL,
    finished_at      = NULL,
    cancel_requested = false,
    trace_origin     = traceparent,
    traceparent      = forgeflow_trace_child(traceparent)
WHERE id = CAST(:id AS uuid) AND status IN ('dead', 'cancelled')
RETURNING id, job_id, status, attempt, max_attempts, priority, scheduled_for, started_at, finished_at,
    (SELECT a.worker_id FROM run_attempts a WHERE a.run_id = runs.id AND a.attempt = runs.attempt) AS worker_id,
    lease_expires_at, output, error, executor, payload, timeout_seconds, cancel_requested, created_at,
    queue, traceparent, tracestate, trace_origin,
    retry_base_seconds, retry_max_seconds, labels, has_children, snoozes, tenant
)
SELECT q.*, CASE WHEN q.has_children THEN forgeflow_reopen_children(q.job_id) ELSE 0 END AS reopened_children
FROM requeued q
