--liquibase formatted sql

-- Issue 40: jobs' 40 CHECK constraints become one, jobs_rules, which calls forgeflow_job_rules (its rules keep their
-- names). PostgreSQL built the 40 expressions anew for every statement that wrote jobs: about 110 us of each
-- single-row write, which a one-off run made twice (docs/BENCHMARKS.md, "Issue 40, twelfth session"). NOT VALID, so
-- no scan under the lock: every stored row kept the same rules under the constraints dropped in the same statement
-- (four of them NOT VALID since 0025, which this keeps). One short ACCESS EXCLUSIVE lock on jobs. Nodes of earlier
-- releases are unaffected: none names a check constraint. The rollback restores the 40, NOT VALID likewise.

--changeset forgeflow:0030-job-rules-in-one-check
ALTER TABLE jobs ADD CONSTRAINT jobs_rules CHECK (forgeflow_job_rules(jobs)) NOT VALID,
    DROP CONSTRAINT jobs_catch_up_values,
    DROP CONSTRAINT jobs_concurrency_key_length,
    DROP CONSTRAINT jobs_controls_recurring,
    DROP CONSTRAINT jobs_dead_streak_positive,
    DROP CONSTRAINT jobs_debounce_one_off,
    DROP CONSTRAINT jobs_debounce_shape,
    DROP CONSTRAINT jobs_executor_length,
    DROP CONSTRAINT jobs_fired_runs_positive,
    DROP CONSTRAINT jobs_idempotency_key_length,
    DROP CONSTRAINT jobs_jitter_range,
    DROP CONSTRAINT jobs_key_needs_limit,
    DROP CONSTRAINT jobs_labels_object,
    DROP CONSTRAINT jobs_max_attempts_range,
    DROP CONSTRAINT jobs_max_concurrent_range,
    DROP CONSTRAINT jobs_max_runs_range,
    DROP CONSTRAINT jobs_name_length,
    DROP CONSTRAINT jobs_notify_shape,
    DROP CONSTRAINT jobs_on_parent_failure_values,
    DROP CONSTRAINT jobs_one_schedule,
    DROP CONSTRAINT jobs_overlap_values,
    DROP CONSTRAINT jobs_pause_after_failures_range,
    DROP CONSTRAINT jobs_paused_by_length,
    DROP CONSTRAINT jobs_paused_note_length,
    DROP CONSTRAINT jobs_payload_object,
    DROP CONSTRAINT jobs_priority_range,
    DROP CONSTRAINT jobs_queue_name,
    DROP CONSTRAINT jobs_retry_base_at_most_max,
    DROP CONSTRAINT jobs_retry_base_range,
    DROP CONSTRAINT jobs_retry_max_range,
    DROP CONSTRAINT jobs_sequence_key_length,
    DROP CONSTRAINT jobs_sequence_on_dead_values,
    DROP CONSTRAINT jobs_sequence_one_off,
    DROP CONSTRAINT jobs_status_values,
    DROP CONSTRAINT jobs_submitted_via_values,
    DROP CONSTRAINT jobs_tenant_name,
    DROP CONSTRAINT jobs_throttle_shape,
    DROP CONSTRAINT jobs_timeout_range,
    DROP CONSTRAINT jobs_unique_key_length,
    DROP CONSTRAINT jobs_unique_key_one_off,
    DROP CONSTRAINT jobs_window_order;
--rollback ALTER TABLE jobs DROP CONSTRAINT jobs_rules, ADD CONSTRAINT jobs_catch_up_values CHECK ((catch_up = ANY (ARRAY['skip'::text, 'once'::text]))) NOT VALID, ADD CONSTRAINT jobs_concurrency_key_length CHECK (((char_length(concurrency_key) >= 1) AND (char_length(concurrency_key) <= 264))) NOT VALID, ADD CONSTRAINT jobs_controls_recurring CHECK (((cron_expr IS NOT NULL) OR ((start_at IS NULL) AND (end_at IS NULL) AND (max_runs IS NULL) AND (jitter_seconds = 0) AND (pause_after_failures IS NULL)))) NOT VALID, ADD CONSTRAINT jobs_dead_streak_positive CHECK ((dead_streak >= 0)) NOT VALID, ADD CONSTRAINT jobs_debounce_one_off CHECK (((debounce IS NULL) OR (cron_expr IS NULL))) NOT VALID, ADD CONSTRAINT jobs_debounce_shape CHECK (((jsonb_typeof((debounce -> 'key'::text)) = 'string'::text) AND (jsonb_typeof((debounce -> 'period_seconds'::text)) = 'number'::text) AND ((debounce ->> 'edge'::text) = ANY (ARRAY['trailing'::text, 'leading'::text])))) NOT VALID, ADD CONSTRAINT jobs_executor_length CHECK (((char_length(executor) >= 1) AND (char_length(executor) <= 100))) NOT VALID, ADD CONSTRAINT jobs_fired_runs_positive CHECK ((fired_runs >= 0)) NOT VALID, ADD CONSTRAINT jobs_idempotency_key_length CHECK (((char_length(idempotency_key) >= 1) AND (char_length(idempotency_key) <= 264))) NOT VALID, ADD CONSTRAINT jobs_jitter_range CHECK (((jitter_seconds >= 0) AND (jitter_seconds <= 86400))) NOT VALID, ADD CONSTRAINT jobs_key_needs_limit CHECK (((concurrency_key IS NULL) OR (max_concurrent IS NOT NULL))) NOT VALID, ADD CONSTRAINT jobs_labels_object CHECK ((jsonb_typeof(labels) = 'object'::text)) NOT VALID, ADD CONSTRAINT jobs_max_attempts_range CHECK (((max_attempts >= 1) AND (max_attempts <= 100))) NOT VALID, ADD CONSTRAINT jobs_max_concurrent_range CHECK (((max_concurrent >= 1) AND (max_concurrent <= 10000))) NOT VALID, ADD CONSTRAINT jobs_max_runs_range CHECK (((max_runs >= 1) AND (max_runs <= 1000000))) NOT VALID, ADD CONSTRAINT jobs_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))) NOT VALID, ADD CONSTRAINT jobs_notify_shape CHECK (((jsonb_typeof((notify -> 'url'::text)) = 'string'::text) AND (jsonb_typeof((notify -> 'on'::text)) = 'array'::text) AND (jsonb_array_length((notify -> 'on'::text)) > 0))) NOT VALID, ADD CONSTRAINT jobs_on_parent_failure_values CHECK ((on_parent_failure = ANY (ARRAY['cancel'::text, 'run'::text, 'wait'::text]))) NOT VALID, ADD CONSTRAINT jobs_one_schedule CHECK (((cron_expr IS NULL) OR (run_at IS NULL))) NOT VALID, ADD CONSTRAINT jobs_overlap_values CHECK ((overlap = ANY (ARRAY['allow'::text, 'skip'::text, 'queue_one'::text, 'cancel_running'::text]))) NOT VALID, ADD CONSTRAINT jobs_pause_after_failures_range CHECK (((pause_after_failures >= 1) AND (pause_after_failures <= 1000))) NOT VALID, ADD CONSTRAINT jobs_paused_by_length CHECK (((char_length(paused_by) >= 1) AND (char_length(paused_by) <= 200))) NOT VALID, ADD CONSTRAINT jobs_paused_note_length CHECK (((char_length(paused_note) >= 1) AND (char_length(paused_note) <= 500))) NOT VALID, ADD CONSTRAINT jobs_payload_object CHECK ((jsonb_typeof(payload) = 'object'::text)) NOT VALID, ADD CONSTRAINT jobs_priority_range CHECK (((priority >= 1) AND (priority <= 9))) NOT VALID, ADD CONSTRAINT jobs_queue_name CHECK ((queue ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'::text)) NOT VALID, ADD CONSTRAINT jobs_retry_base_at_most_max CHECK ((retry_base_seconds <= retry_max_seconds)) NOT VALID, ADD CONSTRAINT jobs_retry_base_range CHECK (((retry_base_seconds >= 1) AND (retry_base_seconds <= 86400))) NOT VALID, ADD CONSTRAINT jobs_retry_max_range CHECK (((retry_max_seconds >= 1) AND (retry_max_seconds <= 86400))) NOT VALID, ADD CONSTRAINT jobs_sequence_key_length CHECK (((char_length(sequence_key) >= 1) AND (char_length(sequence_key) <= 264))) NOT VALID, ADD CONSTRAINT jobs_sequence_on_dead_values CHECK ((sequence_on_dead = ANY (ARRAY['block'::text, 'continue'::text]))) NOT VALID, ADD CONSTRAINT jobs_sequence_one_off CHECK (((sequence_key IS NULL) OR (cron_expr IS NULL))) NOT VALID, ADD CONSTRAINT jobs_status_values CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text, 'cancelled'::text, 'completed'::text, 'deleted'::text]))) NOT VALID, ADD CONSTRAINT jobs_submitted_via_values CHECK ((submitted_via = ANY (ARRAY['rest'::text, 'sql'::text]))) NOT VALID, ADD CONSTRAINT jobs_tenant_name CHECK ((tenant ~ '^[a-z0-9_.-]{1,63}$'::text)) NOT VALID, ADD CONSTRAINT jobs_throttle_shape CHECK (((jsonb_typeof((throttle -> 'key'::text)) = 'string'::text) AND ((((throttle ->> 'count'::text))::integer >= 1) AND (((throttle ->> 'count'::text))::integer <= 100000)) AND ((((throttle ->> 'per_seconds'::text))::integer >= 1) AND (((throttle ->> 'per_seconds'::text))::integer <= 86400)))) NOT VALID, ADD CONSTRAINT jobs_timeout_range CHECK (((timeout_seconds >= 1) AND (timeout_seconds <= 86400))) NOT VALID, ADD CONSTRAINT jobs_unique_key_length CHECK (((char_length(unique_key) >= 1) AND (char_length(unique_key) <= 264))) NOT VALID, ADD CONSTRAINT jobs_unique_key_one_off CHECK (((unique_key IS NULL) OR (cron_expr IS NULL))) NOT VALID, ADD CONSTRAINT jobs_window_order CHECK ((end_at > start_at)) NOT VALID;
