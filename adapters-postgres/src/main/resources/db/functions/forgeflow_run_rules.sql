--liquibase formatted sql

-- The rules every stored run keeps, checked by runs' one CHECK (runs_rules, migration 0032), as
-- forgeflow_job_rules.sql does for jobs and for the same reason: PostgreSQL builds a table's CHECK expressions anew
-- for every statement that writes it, and runs is written by every submission, claim and acknowledgement. Each rule
-- keeps its former constraint's name and is reported as that constraint was (23514, naming it); a NULL passes.
-- Included before 0032 (which names it) and re-run when changed: a new rule of a run goes here.

--changeset forgeflow:function-forgeflow_run_rules runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_run_rules(r runs) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    broken text;
BEGIN
    CASE
        WHEN NOT (r.status IN ('waiting', 'pending', 'running', 'succeeded', 'dead', 'cancelled'))
            THEN broken := 'runs_status_values';
        WHEN NOT (r.priority BETWEEN 1 AND 9) THEN broken := 'runs_priority_range';
        WHEN NOT (r.attempt >= 0) THEN broken := 'runs_attempt_non_negative';
        WHEN NOT (r.max_attempts >= 1) THEN broken := 'runs_max_attempts_positive';
        WHEN NOT (r.timeout_seconds BETWEEN 1 AND 86400) THEN broken := 'runs_timeout_range';
        WHEN NOT ((r.status = 'running') = (r.worker_id IS NOT NULL AND r.lease_expires_at IS NOT NULL))
            THEN broken := 'runs_running_is_leased';
        WHEN NOT ((r.concurrency_key IS NULL) = (r.max_concurrent IS NULL)) THEN broken := 'runs_key_has_limit';
        WHEN NOT (r.retry_base_seconds BETWEEN 1 AND 86400) THEN broken := 'runs_retry_base_range';
        WHEN NOT (r.retry_max_seconds BETWEEN 1 AND 86400) THEN broken := 'runs_retry_max_range';
        WHEN NOT (r.retry_base_seconds <= r.retry_max_seconds) THEN broken := 'runs_retry_base_at_most_max';
        ELSE RETURN true;
    END CASE;
    RAISE EXCEPTION 'new row for relation "runs" violates check constraint "%"', broken
        USING ERRCODE = 'check_violation', CONSTRAINT = broken, TABLE = 'runs';
END
$$;
