--liquibase formatted sql

-- The rules every stored job keeps, checked by jobs' one CHECK (jobs_rules, migration 0030). They were 40 CHECK
-- constraints until 0030: PostgreSQL builds a table's CHECK expressions anew for each statement that writes it, which
-- cost a single-row write to jobs about 110 us (a one-off job's insert and its completion: docs/BENCHMARKS.md). A
-- PL/pgSQL function keeps its plans for the session. Each rule keeps its former constraint's name, and a broken one
-- is reported as that constraint was (23514, naming it). A NULL passes, as it does a CHECK. Callers get their errors
-- earlier and field by field (JobDraft, forgeflow_check_payload): this is the database's last word, for every writer.
-- Included before 0030 (which names it) and re-run when changed: a new rule of a job goes here.

--changeset forgeflow:function-forgeflow_job_rules runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_job_rules(r jobs) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    broken text;
BEGIN
    CASE
        WHEN NOT (pg_catalog.char_length(r.name) BETWEEN 1 AND 200) THEN broken := 'jobs_name_length';
        WHEN NOT (pg_catalog.char_length(r.executor) BETWEEN 1 AND 100) THEN broken := 'jobs_executor_length';
        WHEN NOT (pg_catalog.jsonb_typeof(r.payload) = 'object') THEN broken := 'jobs_payload_object';
        WHEN NOT (r.priority BETWEEN 1 AND 9) THEN broken := 'jobs_priority_range';
        WHEN NOT (r.max_attempts BETWEEN 1 AND 100) THEN broken := 'jobs_max_attempts_range';
        WHEN NOT (r.timeout_seconds BETWEEN 1 AND 86400) THEN broken := 'jobs_timeout_range';
        WHEN NOT (r.catch_up IN ('skip', 'once')) THEN broken := 'jobs_catch_up_values';
        WHEN NOT (pg_catalog.char_length(r.idempotency_key) BETWEEN 1 AND 264) THEN broken := 'jobs_idempotency_key_length';
        WHEN NOT (r.status IN ('active', 'paused', 'cancelled', 'completed', 'deleted')) THEN broken := 'jobs_status_values';
        WHEN NOT (r.cron_expr IS NULL OR r.run_at IS NULL) THEN broken := 'jobs_one_schedule';
        WHEN NOT (r.queue ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$') THEN broken := 'jobs_queue_name';
        WHEN NOT (pg_catalog.char_length(r.concurrency_key) BETWEEN 1 AND 264) THEN broken := 'jobs_concurrency_key_length';
        WHEN NOT (r.max_concurrent BETWEEN 1 AND 10000) THEN broken := 'jobs_max_concurrent_range';
        WHEN NOT (r.concurrency_key IS NULL OR r.max_concurrent IS NOT NULL) THEN broken := 'jobs_key_needs_limit';
        WHEN NOT (r.overlap IN ('allow', 'skip', 'queue_one', 'cancel_running')) THEN broken := 'jobs_overlap_values';
        WHEN NOT (r.submitted_via IN ('rest', 'sql')) THEN broken := 'jobs_submitted_via_values';
        WHEN NOT (pg_catalog.char_length(r.unique_key) BETWEEN 1 AND 264) THEN broken := 'jobs_unique_key_length';
        WHEN NOT (r.unique_key IS NULL OR r.cron_expr IS NULL) THEN broken := 'jobs_unique_key_one_off';
        WHEN NOT (r.retry_base_seconds BETWEEN 1 AND 86400) THEN broken := 'jobs_retry_base_range';
        WHEN NOT (r.retry_max_seconds BETWEEN 1 AND 86400) THEN broken := 'jobs_retry_max_range';
        WHEN NOT (r.retry_base_seconds <= r.retry_max_seconds) THEN broken := 'jobs_retry_base_at_most_max';
        WHEN NOT (pg_catalog.jsonb_typeof(r.labels) = 'object') THEN broken := 'jobs_labels_object';
        WHEN NOT (r.on_parent_failure IN ('cancel', 'run', 'wait')) THEN broken := 'jobs_on_parent_failure_values';
        WHEN NOT (r.jitter_seconds BETWEEN 0 AND 86400) THEN broken := 'jobs_jitter_range';
        WHEN NOT (r.max_runs BETWEEN 1 AND 1000000) THEN broken := 'jobs_max_runs_range';
        WHEN NOT (r.pause_after_failures BETWEEN 1 AND 1000) THEN broken := 'jobs_pause_after_failures_range';
        WHEN NOT (pg_catalog.char_length(r.paused_note) BETWEEN 1 AND 500) THEN broken := 'jobs_paused_note_length';
        WHEN NOT (pg_catalog.char_length(r.paused_by) BETWEEN 1 AND 200) THEN broken := 'jobs_paused_by_length';
        WHEN NOT (r.end_at > r.start_at) THEN broken := 'jobs_window_order';
        WHEN NOT (r.cron_expr IS NOT NULL OR (r.start_at IS NULL AND r.end_at IS NULL AND r.max_runs IS NULL
                  AND r.jitter_seconds = 0 AND r.pause_after_failures IS NULL)) THEN broken := 'jobs_controls_recurring';
        WHEN NOT (r.fired_runs >= 0) THEN broken := 'jobs_fired_runs_positive';
        WHEN NOT (pg_catalog.char_length(r.sequence_key) BETWEEN 1 AND 264) THEN broken := 'jobs_sequence_key_length';
        WHEN NOT (r.sequence_on_dead IN ('block', 'continue')) THEN broken := 'jobs_sequence_on_dead_values';
        WHEN NOT (r.sequence_key IS NULL OR r.cron_expr IS NULL) THEN broken := 'jobs_sequence_one_off';
        WHEN NOT (r.dead_streak >= 0) THEN broken := 'jobs_dead_streak_positive';
        WHEN NOT (pg_catalog.jsonb_typeof(r.notify -> 'url') = 'string' AND pg_catalog.jsonb_typeof(r.notify -> 'on') = 'array'
                  AND pg_catalog.jsonb_array_length(r.notify -> 'on') > 0) THEN broken := 'jobs_notify_shape';
        WHEN NOT (pg_catalog.jsonb_typeof(r.debounce -> 'key') = 'string'
                  AND pg_catalog.jsonb_typeof(r.debounce -> 'period_seconds') = 'number'
                  AND r.debounce ->> 'edge' IN ('trailing', 'leading')) THEN broken := 'jobs_debounce_shape';
        WHEN NOT (pg_catalog.jsonb_typeof(r.throttle -> 'key') = 'string'
                  AND (r.throttle ->> 'count')::integer BETWEEN 1 AND 100000
                  AND (r.throttle ->> 'per_seconds')::integer BETWEEN 1 AND 86400) THEN broken := 'jobs_throttle_shape';
        WHEN NOT (r.debounce IS NULL OR r.cron_expr IS NULL) THEN broken := 'jobs_debounce_one_off';
        WHEN NOT (r.tenant ~ '^[a-z0-9_.-]{1,63}$') THEN broken := 'jobs_tenant_name';
        ELSE RETURN true;
    END CASE;
    RAISE EXCEPTION 'new row for relation "jobs" violates check constraint "%"', broken
        USING ERRCODE = 'check_violation', CONSTRAINT = broken, TABLE = 'jobs';
END
$$;
