-- updatePendingRuns: after update, in its transaction (the runs were locked by lockLiveRuns before the job row). The
-- job's pending runs take its new priority, queue, payload, timeout, concurrency limit, retry policy and labels when :follow; those not
-- attempted yet become due at :rescheduleTo when it is given (a one-off job's new run_at). Running runs are untouched.
UPDATE runs r
SET priority        = CASE WHEN :follow THEN j.priority ELSE r.priority END,
    queue           = CASE WHEN :follow THEN j.queue ELSE r.queue END,
    payload         = CASE WHEN :follow THEN j.payload ELSE r.payload END,
    timeout_seconds = CASE WHEN :follow THEN j.timeout_seconds ELSE r.timeout_seconds END,
    concurrency_key = CASE WHEN NOT :follow THEN r.concurrency_key WHEN j.max_concurrent IS NULL THEN NULL
                           ELSE coalesce(j.concurrency_key, 'job:' || j.id) END,
    max_concurrent  = CASE WHEN :follow THEN j.max_concurrent ELSE r.max_concurrent END,
    retry_base_seconds = CASE WHEN :follow THEN j.retry_base_seconds ELSE r.retry_base_seconds END,
    retry_max_seconds  = CASE WHEN :follow THEN j.retry_max_seconds ELSE r.retry_max_seconds END,
    labels          = CASE WHEN :follow THEN j.labels ELSE r.labels END,
    throttle_key    = CASE WHEN :follow THEN j.throttle ->> 'key' ELSE r.throttle_key END,
    throttle_count  = CASE WHEN :follow THEN (j.throttle ->> 'count')::integer ELSE r.throttle_count END,
    throttle_per_seconds = CASE WHEN :follow THEN (j.throttle ->> 'per_seconds')::integer
                                ELSE r.throttle_per_seconds END,
    scheduled_for   = CASE WHEN CAST(:rescheduleTo AS timestamptz) IS NOT NULL AND r.attempt = 0
                           THEN CAST(:rescheduleTo AS timestamptz) ELSE r.scheduled_for END
FROM jobs j
WHERE j.id = CAST(:id AS uuid) AND r.job_id = j.id AND r.status IN ('pending', 'waiting')
RETURNING r.id
